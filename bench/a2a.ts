/**
 * A2A against `/v1` on the same server in the same run: `serve` in this process (a SQLite file,
 * the worker pool, an instant scripted model), the official `@a2a-js/sdk` client over JSON-RPC.
 *
 * - sequential: one task at a time, A2A `SendStreamingMessage` and `/v1` (`POST /v1/tasks`, then
 *   `GET /v1/tasks/{id}/events` as SSE) alternating, time to the first event and to the end of
 *   the stream (the task completed);
 * - concurrent: `--clients` A2A clients (default 100) each streaming a task at once: each one's
 *   time to completion, and the wall time for all.
 *
 *   npm run bench:a2a                                   # 3 rounds, 50 tasks each way, 100 clients
 *   npm run bench:a2a -- --rounds 2 --tasks 20 --clients 50
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SendMessageRequest } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry, MemoryTokenStore } from "@sema-agent/server";
import { a2a } from "@sema-agent/server/a2a";
import { serve } from "@sema-agent/server/node";
import { SqliteStore } from "@sema-agent/sqlite";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    tasks: { type: "string", default: "50" },
    clients: { type: "string", default: "100" },
    save: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const TASKS = Number(values.tasks);
const CLIENTS = Number(values.clients);

const machine = describeMachine();
const dir = mkdtempSync(join(tmpdir(), "sema-bench-a2a-"));
const store = new SqliteStore({ path: join(dir, "sema.db") });
const tokens = new MemoryTokenStore();
const serving = await serve({
  store,
  tokens,
  protocols: [a2a()],
  agents: createAgentRegistry({
    default: {
      name: "default",
      model: new ScriptedModel([{ text: "ok" }], { mode: "by-transcript", recordRequests: false }),
    },
  }),
  port: 0,
  workers: { concurrency: 32, maxPerPrincipal: 1_000 },
  // The benchmark is one principal sending hundreds of requests a second.
  limits: { ratePerMinute: 1_000_000, rateBurst: 1_000_000 },
});
const token = serving.firstToken?.token ?? "";

function a2aClient(): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(serving.url);
}

const request = () =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "Say ok" }] },
  });

/** Time to the first event and to the end of one A2A stream, in ms. */
async function a2aOnce(client: Client): Promise<[number, number]> {
  const start = performance.now();
  let first = 0;
  for await (const _ of client.sendMessageStream(request())) if (first === 0) first = performance.now() - start;
  return [first, performance.now() - start];
}

/** The same through /v1: create, then read the task's SSE stream to its end. */
async function v1Once(): Promise<[number, number]> {
  const start = performance.now();
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const created = await fetch(`${serving.url}/v1/tasks`, {
    method: "POST",
    headers,
    body: JSON.stringify({ objective: "Say ok" }),
  });
  const { taskId } = (await created.json()) as { taskId: string };
  const events = await fetch(`${serving.url}/v1/tasks/${taskId}/events`, { headers });
  let first = 0;
  const reader = events.body?.getReader();
  for (;;) {
    const chunk = await reader?.read();
    if (chunk === undefined || chunk.done) break;
    if (first === 0) first = performance.now() - start;
  }
  return [first, performance.now() - start];
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const client = await a2aClient();
// Warm-up, not counted: JIT, the SQLite page cache, the client's card.
for (let i = 0; i < 10; i++) {
  await a2aOnce(client);
  await v1Once();
}

const rows = new Map<string, ResultRow>();
const add = (subject: string, metric: string, unit: string, value: number) => {
  const key = `${subject}\u0000${metric}`;
  const row = rows.get(key) ?? { subject, metric, unit, samples: [] };
  row.samples.push(value);
  rows.set(key, row);
};

for (let round = 0; round < ROUNDS; round++) {
  const a2a: [number, number][] = [];
  const v1: [number, number][] = [];
  for (let i = 0; i < TASKS; i++) {
    a2a.push(await a2aOnce(client));
    v1.push(await v1Once());
  }
  for (const [subject, samples] of [
    ["A2A SendStreamingMessage (JSON-RPC)", a2a],
    ["/v1 POST + SSE", v1],
  ] as const) {
    add(
      subject,
      "first event, p50",
      "ms",
      percentile(
        samples.map((s) => s[0]),
        50,
      ),
    );
    add(
      subject,
      "first event, p95",
      "ms",
      percentile(
        samples.map((s) => s[0]),
        95,
      ),
    );
    add(
      subject,
      "completion, p50",
      "ms",
      percentile(
        samples.map((s) => s[1]),
        50,
      ),
    );
    add(
      subject,
      "completion, p95",
      "ms",
      percentile(
        samples.map((s) => s[1]),
        95,
      ),
    );
  }
  add(
    "A2A ÷ /v1",
    "completion p50 ratio",
    "×",
    percentile(
      a2a.map((s) => s[1]),
      50,
    ) /
      percentile(
        v1.map((s) => s[1]),
        50,
      ),
  );

  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => a2aClient()));
  const start = performance.now();
  const done = await Promise.all(clients.map((each) => a2aOnce(each)));
  const wall = performance.now() - start;
  const subject = `${CLIENTS} concurrent A2A streams`;
  add(
    subject,
    "completion, p50",
    "ms",
    percentile(
      done.map((s) => s[1]),
      50,
    ),
  );
  add(
    subject,
    "completion, p95",
    "ms",
    percentile(
      done.map((s) => s[1]),
      95,
    ),
  );
  add(subject, "wall time, all done", "ms", wall);
  add(subject, "tasks/s", "tasks/s", (CLIENTS / wall) * 1000);
}

console.log(formatMachine(machine));
console.log(`\n${ROUNDS} rounds; per round ${TASKS} tasks each way, then ${CLIENTS} concurrent A2A clients\n`);
console.log(formatTable([...rows.values()]));
saveIfAsked("a2a", machine, [...rows.values()]);
await serving.close({ deadlineMs: 2000 });
await store.close();
rmSync(dir, { recursive: true, force: true });
