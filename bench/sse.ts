/**
 * The serving benchmark: SSE fan-out — 1,000 subscribers on one task's event stream over loopback
 * sockets, events delivered per second and latency from append to receipt (p50 / p99) — and the
 * throughput of POST /v1/tasks/:id/inputs. One process: the server and its clients share the
 * machine's two cores, so the figures are a floor.
 *
 *   npm run bench:sse                                    # 1,000 subscribers, 200 events, 2,000 inputs
 *   npm run sse -w @sema-agent/bench -- --subscribers 200 --events 100 --inputs 500
 */
import { parseArgs } from "node:util";
import { MemoryStore, startTask } from "@sema-agent/core";
import { make, ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry, createApp, createTokenIngress, listen, MemoryTokenStore } from "@sema-agent/server";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";

const { values } = parseArgs({
  options: {
    subscribers: { type: "string", default: "1000" },
    events: { type: "string", default: "200" },
    inputs: { type: "string", default: "2000" },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const EVENTS = Number(values.events);
const INPUTS = Number(values.inputs);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const store = new MemoryStore();
const tokens = new MemoryTokenStore();
const { token } = await tokens.create({ principal: "bench", actorId: "bench", roles: ["approver", "supervisor"] });
const app = createApp({
  store,
  agents: createAgentRegistry({ default: { model: new ScriptedModel([]) } }),
  ingress: createTokenIngress(tokens),
  limits: { ratePerMinute: 10_000_000, rateBurst: 1_000_000 },
});
const server = await listen(app, { port: 0 });
const headers = { authorization: `Bearer ${token}` };
const taskId = await startTask(store, { objective: "Fan out", principal: "bench" });
const startSeq = (await store.getTask(taskId)).lastSeq;

// Subscribers: each reads the stream, notes when each stored event (by id) arrived.
const appendedAt = new Map<number, number>();
const latencies: number[] = [];
let delivered = 0;
let connected = 0;
async function subscribe(): Promise<void> {
  const response = await fetch(`${server.url}/v1/tasks/${taskId}/events?after=${startSeq}`, { headers });
  connected++;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      if (id !== undefined) {
        const at = appendedAt.get(Number(id));
        if (at !== undefined) latencies.push(performance.now() - at);
        delivered++;
      }
      end = buffer.indexOf("\n\n");
    }
  }
}
const subscribers = Array.from({ length: SUBSCRIBERS }, () => subscribe());
while (connected < SUBSCRIBERS) await new Promise((r) => setTimeout(r, 20));
await new Promise((r) => setTimeout(r, 200));

const fanStart = performance.now();
let seq = startSeq;
for (let i = 0; i < EVENTS; i++) {
  const at = performance.now();
  const [stored] = await store.append(taskId, [make.note(`event ${i}`, "bench")], { expectedSeq: seq });
  seq = stored?.seq ?? seq + 1;
  appendedAt.set(seq, at);
  if (i % 10 === 9) await new Promise((r) => setImmediate(r));
}
await store.append(taskId, [{ type: "task_completed", v: 1, result: "done" }], { expectedSeq: seq });
await Promise.all(subscribers);
const fanMs = performance.now() - fanStart;
latencies.sort((a, b) => a - b);

// POST /inputs, 16 in flight: all to one parked task (each append races the others for the end
// of one log, and a loser retries), then spread over 16 tasks (no contention).
async function postInputs(targets: readonly string[]): Promise<number> {
  let sent = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async (_, worker) => {
      const target = targets[worker % targets.length] as string;
      while (sent < INPUTS) {
        sent++;
        const response = await fetch(`${server.url}/v1/tasks/${target}/inputs`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ text: `input ${sent}`, carrier: "nextTurn" }),
        });
        if (response.status !== 202)
          throw new Error(`POST /inputs answered ${response.status}: ${await response.text()}`);
      }
    }),
  );
  return (INPUTS * 1000) / (performance.now() - start);
}
const oneTask = await postInputs([await startTask(store, { objective: "Take inputs", principal: "bench" })]);
const spread = await postInputs(
  await Promise.all(
    Array.from({ length: 16 }, () => startTask(store, { objective: "Take inputs", principal: "bench" })),
  ),
);
await server.close();

console.log(formatMachine(describeMachine()));
console.log(`\n${SUBSCRIBERS} subscribers × ${EVENTS + 1} events over loopback; ${INPUTS} inputs, 16 in flight\n`);
const rows: ResultRow[] = [
  {
    subject: "SSE fan-out",
    metric: "events delivered per second (all subscribers)",
    unit: "events/s",
    samples: [(delivered * 1000) / fanMs],
  },
  { subject: "SSE fan-out", metric: "append → receipt, p50", unit: "ms", samples: [percentile(latencies, 50)] },
  { subject: "SSE fan-out", metric: "append → receipt, p99", unit: "ms", samples: [percentile(latencies, 99)] },
  {
    subject: "SSE fan-out",
    metric: "events each subscriber received",
    unit: "events",
    samples: [delivered / SUBSCRIBERS],
  },
  { subject: "POST /inputs", metric: "accepted per second, all to one task", unit: "requests/s", samples: [oneTask] },
  { subject: "POST /inputs", metric: "accepted per second, over 16 tasks", unit: "requests/s", samples: [spread] },
];
console.log(formatTable(rows));
