/**
 * The scale-out benchmark (issue 8): PostgreSQL beside SQLite in the same run — appends per
 * second (single and batched), claims per second with 3 workers, and the latency of a steer from
 * its POST on API node A to its application by a leg on worker node B. "Nodes" here are separate
 * store instances in one process (separate connection pools for PostgreSQL, separate connections
 * to the file for SQLite), so a steer crosses the database exactly as between machines: written
 * by A, noticed by B through LISTEN/NOTIFY (PostgreSQL) or the commit poller (SQLite).
 *
 *   npm run bench:scale-out                                     # both stores, 3 rounds
 *   npm run scale-out -w @sema-agent/bench -- --store postgres --rounds 1
 *   npm run bench:scale-out -- --save                           # and write bench/results/scale-out/…json
 *
 * PostgreSQL: SEMA_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test; each round uses a
 * fresh schema, dropped after it.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Agent, defineTool, type Store, type TaskEvent } from "@sema-agent/core";
import { make, ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { createAgentRegistry, createApp, createTokenIngress, MemoryTokenStore } from "@sema-agent/server";
import { SqliteStore } from "@sema-agent/sqlite";
import { startWorkers } from "@sema-agent/worker";
import pg from "pg";
import { z } from "zod";
import {
  describeMachine,
  formatMachine,
  formatTable,
  perSecond,
  type ResultRow,
  realisticEvents,
  reportToParent,
  runInChild,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const POSTGRES_URL = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SINGLE_APPENDS = 5_000;
const BATCHES = 300;
const BATCH_SIZE = 100;
const CLAIM_TASKS = 2_000;
const CLAIMERS = 3;
const STEERS = 200;

/** One deployment's database: `open()` makes another node's store on it. */
interface Deployment {
  open(): Store;
  dispose(): Promise<void>;
}

const SUBJECTS: Record<string, { name: string; deploy(): Deployment }> = {
  postgres: {
    name: "PostgresStore",
    deploy() {
      const schema = `sema_bench_${randomBytes(5).toString("hex")}`;
      return {
        open: () => new PostgresStore({ connectionString: POSTGRES_URL, schema }),
        async dispose() {
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        },
      };
    },
  },
  sqlite: {
    name: "SqliteStore (file)",
    deploy() {
      const dir = mkdtempSync(join(tmpdir(), "sema-bench-scale-"));
      return {
        open: () => new SqliteStore({ path: join(dir, "bench.db") }),
        async dispose() {
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
};

async function newTask(store: Store, objective = "Benchmark"): Promise<string> {
  const [created] = await store.createTask({ created: make.created("bench", objective) });
  if (created === undefined) throw new Error("createTask returned no event");
  return created.taskId;
}

async function appends(store: Store, events: readonly TaskEvent[]): Promise<{ single: number; batched: number }> {
  const single = await newTask(store);
  const singleRun = await timed(async () => {
    for (let i = 0; i < SINGLE_APPENDS; i++)
      await store.append(single, [events[i % events.length] as TaskEvent], { expectedSeq: i + 1 });
  });
  const batched = await newTask(store);
  const batch = events.slice(0, BATCH_SIZE);
  const batchRun = await timed(async () => {
    for (let i = 0; i < BATCHES; i++) await store.append(batched, batch, { expectedSeq: 1 + i * BATCH_SIZE });
  });
  return {
    single: perSecond(SINGLE_APPENDS, singleRun.ms),
    batched: perSecond(BATCHES * BATCH_SIZE, batchRun.ms),
  };
}

/** 3 workers, each its own store, claim 8 at a time until every task is claimed. */
async function claims(deployment: Deployment): Promise<number> {
  const setup = deployment.open();
  for (let i = 0; i < CLAIM_TASKS; i++) await newTask(setup);
  await setup.close();
  const workers = Array.from({ length: CLAIMERS }, () => deployment.open());
  // Connect and migrate before the clock starts.
  await Promise.all(workers.map((store) => store.listRunnable({ limit: 1 })));
  const run = await timed(async () => {
    const counts = await Promise.all(
      workers.map(async (store, w) => {
        let claimed = 0;
        for (;;) {
          const got = await store.claimRunnable({ holder: { id: `w${w}` }, ttlMs: 60_000, limit: 8 });
          if (got.length === 0) return claimed;
          claimed += got.length;
        }
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  });
  await Promise.all(workers.map((store) => store.close()));
  // The appends' two tasks are runnable too.
  if (run.value < CLAIM_TASKS) throw new Error(`claimed ${run.value} of ${CLAIM_TASKS}`);
  return perSecond(run.value, run.ms);
}

/** Steer latency: POST on node A (the API) → applied by the leg on node B (a worker). */
async function steerLatencies(deployment: Deployment): Promise<{ latencies: number[]; postMs: number[] }> {
  const sent = new Map<string, number>();
  const applied = new Map<string, number>();
  const postMs: number[] = [];
  const tick = defineTool({
    name: "tick",
    description: "one step",
    inputSchema: z.object({}),
    readOnly: true,
    idempotent: true,
    execute: () => "ok",
  });
  // Works in 5 ms steps until told to stop, so a steer waits at most one step for its boundary.
  const step = (request: { transcript: ReadonlyArray<{ role: string; content?: unknown }> }): ScriptedTurn =>
    JSON.stringify(request.transcript.at(-1)).includes("steer-stop")
      ? { text: "stopped" }
      : { delayMs: 5, toolCalls: [{ name: "tick", input: {} }] };
  const agent: Agent = {
    model: new ScriptedModel(
      Array.from({ length: 100_000 }, () => step),
      { mode: "by-transcript", recordRequests: false },
    ),
    tools: [tick],
  };
  const agents = createAgentRegistry({ bench: agent });
  const apiStore = deployment.open();
  const workerStore = deployment.open();
  const tokens = new MemoryTokenStore();
  const { token } = await tokens.create({ principal: "bench", actorId: "alice" });
  const app = createApp({
    store: apiStore,
    agents,
    ingress: createTokenIngress(tokens),
    limits: { ratePerMinute: 1_000_000, rateBurst: 1_000_000 },
  });
  const workers = startWorkers({
    store: workerStore,
    agents,
    concurrency: 2,
    pollMs: 50,
    // The pool's event sink sees every event of its legs: the moment a steer is applied.
    hub: {
      publish: (event) => {
        if (event.type === "human_input" && event.delivery === "applied") applied.set(event.inputId, performance.now());
      },
    },
  });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const response = await app.request(path, { method: "POST", headers, body: JSON.stringify(body) });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { taskId?: string; inputId?: string };
  };
  const { taskId } = await post("/v1/tasks", { objective: "Tick until stopped" });
  // Wait for the leg to be running on B before timing anything.
  while ((await apiStore.getTask(taskId ?? "")).summary.status !== "running")
    await new Promise((r) => setTimeout(r, 10));
  for (let i = 0; i < STEERS; i++) {
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
    // No client inputId: the server's idempotency check for one reads the task's whole log.
    const at = performance.now();
    const { inputId } = await post(`/v1/tasks/${taskId}/inputs`, { text: `steer ${i}` });
    sent.set(inputId ?? "", at);
    postMs.push(performance.now() - at);
  }
  const deadline = Date.now() + 10_000;
  const allApplied = () => [...sent.keys()].every((id) => applied.has(id));
  while (!allApplied() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await post(`/v1/tasks/${taskId}/inputs`, { text: "steer-stop" });
  await workers.stop({ deadlineMs: 5_000 });
  await Promise.all([apiStore.close(), workerStore.close()]);
  const latencies = [...sent].flatMap(([inputId, at]) => {
    const done = applied.get(inputId);
    return done === undefined ? [] : [done - at];
  });
  if (latencies.length < STEERS) {
    const missing = [...sent.keys()].filter((id) => !applied.has(id));
    const log = await deployment.open().read(taskId ?? "");
    const mine = log.filter((e) => e.type === "human_input" && missing.includes(e.inputId));
    const tail = log
      .slice(-8)
      .map((e) => `${e.seq} ${e.at} ${e.type} ${"delivery" in e ? e.delivery : ""} ${"reason" in e ? e.reason : ""}`);
    throw new Error(
      `only ${latencies.length} of ${STEERS} steers were applied: ${JSON.stringify(mine)} ${tail.join("; ")}`,
    );
  }
  return { latencies, postMs };
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function runSubject(key: string, rounds: number): Promise<ResultRow[]> {
  const subject = SUBJECTS[key];
  if (subject === undefined) throw new Error(`unknown store ${key}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  const events = realisticEvents(300);
  const samples = { single: [] as number[], batched: [] as number[], claims: [] as number[] };
  const p50: number[] = [];
  const p99: number[] = [];
  const postP50: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const deployment = subject.deploy();
    try {
      const store = deployment.open();
      const rates = await appends(store, events);
      await store.close();
      samples.single.push(rates.single);
      samples.batched.push(rates.batched);
      samples.claims.push(await claims(deployment));
      const { latencies, postMs } = await steerLatencies(deployment);
      postP50.push(percentile(postMs, 50));
      p50.push(percentile(latencies, 50));
      p99.push(percentile(latencies, 99));
      process.stderr.write(
        `${subject.name} round ${round}/${rounds}: ${Math.round(rates.single)} appends/s, ` +
          `${Math.round(rates.batched)} events/s batched, ${Math.round(samples.claims.at(-1) ?? 0)} claims/s, ` +
          `steer p50 ${(p50.at(-1) ?? 0).toFixed(1)} ms p99 ${(p99.at(-1) ?? 0).toFixed(1)} ms\n`,
      );
    } finally {
      await deployment.dispose();
    }
  }
  const name = subject.name;
  return [
    {
      subject: name,
      metric: `single-event appends (${SINGLE_APPENDS.toLocaleString("en-US")})`,
      unit: "appends/s",
      samples: samples.single,
    },
    {
      subject: name,
      metric: `batched appends (${BATCHES} × ${BATCH_SIZE})`,
      unit: "events/s",
      samples: samples.batched,
    },
    { subject: name, metric: `claims, ${CLAIMERS} workers × 8 at a time`, unit: "claims/s", samples: samples.claims },
    { subject: name, metric: "steer POST on A → applied on B, p50", unit: "ms", samples: p50 },
    { subject: name, metric: "steer POST on A → applied on B, p99", unit: "ms", samples: p99 },
    { subject: name, metric: "of which the POST itself, p50", unit: "ms", samples: postP50 },
  ];
}

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    store: { type: "string" },
    save: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

if (values.store !== undefined) {
  const machine = describeMachine();
  const rows = await runSubject(values.store, rounds);
  reportToParent(rows);
  saveIfAsked("scale-out", machine, rows);
  // Pools and timers of the stores closed above must not hold the child open.
  process.exit(0);
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  console.log(`PostgreSQL: ${POSTGRES_URL}\n`);
  const rows: ResultRow[] = [];
  for (const key of Object.keys(SUBJECTS))
    rows.push(...(await runInChild(fileURLToPath(import.meta.url), ["--store", key, "--rounds", String(rounds)])));
  console.log(`\n${formatTable(rows)}`);
  const raw = fileURLToPath(new URL("./results/raw/", import.meta.url));
  mkdirSync(raw, { recursive: true });
  const file = join(raw, `scale-out-${machine.date.replaceAll(":", "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ machine, rows }, null, 2)}\n`);
  console.log(`\nraw results: ${file}`);
  saveIfAsked("scale-out", machine, rows);
}
