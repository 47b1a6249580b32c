/**
 * Live load (issue 21): N concurrent 3-turn tasks run by `runLeg` in one process, each model turn
 * taking 1 s (real timers: it is a benchmark), the first two turns calling the read-only `lookup`
 * tool, the third answering. Per store, in a process of its own: wall time ÷ the model's time
 * (3 s), event-loop lag p50 / p99 / max (`perf_hooks.monitorEventLoopDelay`, 1 ms resolution),
 * peak RSS, commits per second (transactions; a MemoryStore's appends), the longest group-commit
 * batch (SQLite; with `sqlite-thread` it runs on the store's writer thread, not the event loop's), and the steer latency of one extra task during the load: a steer every 100 ms,
 * from `sendInput` resolving (appended) to the leg's append that applies it committing. The
 * tasks are created first, one by one (PostgreSQL: 100 at a time), timed apart; CPU time per
 * task created and per task run is reported beside the wall time, which a shared machine inflates.
 *
 * Three more tasks take what a person sends during the load (lib/live-people.ts, issue 36): a steer,
 * an interrupting input and an approval decision, each every ~100 ms, each timed from the call that
 * sends it starting to the model request that carries it.
 *
 * `postgres-3w` (and `postgres-3w-off`, without group commit): the same load on PostgreSQL run by 3
 * worker processes, each a `startWorkers` pool as `sema worker` runs it (lib/live-workers.ts).
 *
 *   npm run bench:live                                         # N = 1,000 and 10,000, every store
 *   npm run live -w @sema-agent/bench -- --n 10000 --store sqlite,sqlite-off
 *   npm run live -w @sema-agent/bench -- --n 1000,10000 --store postgres@1000,postgres-3w   # a store@N at that N only
 *   npm run live -w @sema-agent/bench -- --n 10000 --store sqlite,sqlite-thread   # writer thread
 *   npm run bench:live -- --save                               # and write bench/results/live/…json
 *   npm run bench:live -- --n 10000 --store sqlite --pacing off  # the load's legs without the pacer
 *   npm run bench:live -- --n 10000 --store sqlite --checkpoints inline  # WAL checkpoints inside COMMITs
 *
 * At N = 10,000 the SQLite subjects' rows carry issue 21's goals as targets (wall ≤ 1.2×, lag p99
 * ≤ 50 ms, RSS ≤ 1 GiB, steer p99 ≤ 100 ms); lib/live-workers.ts sets those of the worker pools.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { lookupTool } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import {
  describeMachine,
  formatMachine,
  formatTable,
  type ResultRow,
  reportToParent,
  runInChild,
} from "./lib/index.ts";
import { startPeople } from "./lib/live-people.ts";
import {
  dropSchema,
  liveSchema,
  loadModel,
  MODEL_MS,
  POSTGRES_URL,
  percentileMs,
  sendSteers,
  steerModel,
  TURNS,
} from "./lib/live-tasks.ts";
import { runWithWorkers } from "./lib/live-workers.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "1000,10000" },
    store: { type: "string", default: "memory,sqlite-off,sqlite,sqlite-thread,postgres-off,postgres,postgres-3w" },
    child: { type: "string" },
    save: { type: "boolean", default: false },
    // `off`: the load's legs leave the event loop's pacer (HarnessOptions.pacing), for a before/after.
    pacing: { type: "string", default: "on" },
    // `inline`: SQLite's WAL checkpoints inside the COMMITs (SqliteStoreOptions.checkpoints), for a before/after.
    checkpoints: { type: "string", default: "background" },
  },
});
const pacing = values.pacing !== "off";
const checkpoints = values.checkpoints === "inline" ? "inline" : "background";

interface Subject {
  name: string;
  open(dir: string): Promise<Store>;
  commits(store: Store): number;
  longestBatchMs?(store: Store): number;
}

const sqliteStats = (store: Store) => (store as SqliteStore).writeStats;
const postgresStats = (store: Store) => (store as PostgresStore).writeStats;
let memoryAppends = 0;

const SUBJECTS: Record<string, Subject> = {
  memory: { name: "MemoryStore", open: async () => new MemoryStore(), commits: () => memoryAppends },
  "sqlite-off": {
    name: "SqliteStore (file), group commit off",
    open: async (dir) => new SqliteStore({ path: join(dir, "live.db"), groupCommit: false, checkpoints }),
    commits: (store) => sqliteStats(store).commits,
  },
  sqlite: {
    name: "SqliteStore (file), group commit on",
    open: async (dir) => new SqliteStore({ path: join(dir, "live.db"), checkpoints }),
    commits: (store) => sqliteStats(store).commits,
    longestBatchMs: (store) => sqliteStats(store).longestBatchMs,
  },
  "sqlite-thread": {
    name: "SqliteStore (file), group commit on, writer thread",
    open: async (dir) => new SqliteStore({ path: join(dir, "live.db"), writer: "thread" }),
    commits: (store) => sqliteStats(store).commits,
    longestBatchMs: (store) => sqliteStats(store).longestBatchMs,
  },
  "postgres-off": {
    name: "PostgresStore, group commit off",
    open: (dir) => openPostgres(dir, false),
    commits: (store) => postgresStats(store).commits,
  },
  postgres: {
    name: "PostgresStore, group commit on",
    open: (dir) => openPostgres(dir, true),
    commits: (store) => postgresStats(store).commits,
  },
};

/** The load on PostgreSQL by 3 worker processes (lib/live-workers.ts): group commit on or off. */
const WORKER_SUBJECTS: Record<string, { name: string; groupCommit: boolean }> = {
  "postgres-3w-off": { name: "PostgresStore, 3 worker processes, group commit off", groupCommit: false },
  "postgres-3w": { name: "PostgresStore, 3 worker processes, group commit on", groupCommit: true },
};

/** The schema is named after the temp dir, so each run has its own (dropped after). */
async function openPostgres(dir: string, groupCommit: boolean): Promise<Store> {
  return PostgresStore.open({ connectionString: POSTGRES_URL, schema: liveSchema(dir), groupCommit });
}

async function dropPostgres(store: Store): Promise<void> {
  if (!(store instanceof PostgresStore)) return;
  const schema = store.schema;
  await store.close();
  await dropSchema(schema);
}

/** The steer task: short steps until `done()`, recording when each steer's application committed. */
function steerHarness(store: Store, done: () => boolean) {
  const appliedAt = new Map<string, number>();
  const watched: Store = new Proxy(store, {
    get(target, key) {
      if (key === "append") {
        return async (...args: Parameters<Store["append"]>) => {
          const stored = await target.append(...args);
          const now = performance.now();
          for (const event of stored)
            if (event.type === "human_input" && event.delivery === "applied") appliedAt.set(event.inputId, now);
          return stored;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { watched, model: steerModel(done), appliedAt };
}

/** One subject at one N, in this process: the rows of that run. */
async function runOne(key: string, n: number): Promise<ResultRow[]> {
  const workers = WORKER_SUBJECTS[key];
  if (workers !== undefined) return runWithWorkers(n, workers.groupCommit, workers.name);
  const subject = SUBJECTS[key];
  if (subject === undefined)
    throw new Error(
      `unknown store ${key}; known: ${[...Object.keys(SUBJECTS), ...Object.keys(WORKER_SUBJECTS)].join(", ")}`,
    );
  const dir = mkdtempSync(join(tmpdir(), "sema-live-"));
  const base = await subject.open(dir);
  const store: Store =
    key === "memory"
      ? new Proxy(base, {
          get(target, prop) {
            if (prop === "append")
              return (...args: Parameters<Store["append"]>) => {
                memoryAppends++;
                return target.append(...args);
              };
            const value: unknown = Reflect.get(target, prop, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        })
      : base;
  try {
    const agent = { model: loadModel(), tools: [lookupTool] };
    // Created before the clock starts, one by one as a host creates them on requests, each awaited
    // (timed, and its CPU time counted apart); PostgreSQL 100 at a time (one by one takes minutes).
    const ids: string[] = [];
    const creationCpu = process.cpuUsage();
    const creationStarted = performance.now();
    if (key.startsWith("postgres")) {
      for (let i = 0; i < n; i += 100) {
        const chunk = Array.from({ length: Math.min(100, n - i) }, (_, j) => `Live task ${i + j}`);
        ids.push(...(await Promise.all(chunk.map((objective) => startTask(store, { objective })))));
      }
    } else {
      for (let i = 0; i < n; i++) ids.push(await startTask(store, { objective: `Live task ${i}` }));
    }
    const creationMs = performance.now() - creationStarted;
    const creationCpuUs = cpuUs(process.cpuUsage(creationCpu));
    const steerTask = await startTask(store, { objective: "Take steers" });
    let loadDone = false;
    const steer = steerHarness(store, () => loadDone);

    const lag = monitorEventLoopDelay({ resolution: 1 });
    const commitsBefore = subject.commits(store);
    lag.enable();
    const runCpu = process.cpuUsage();
    const started = performance.now();
    // A saturated process can lose the steer task's lease too: that ends the steers, not the run.
    let steerFailure: unknown;
    const steerLeg = runLeg(
      { store: steer.watched, agent: { model: steer.model, tools: [lookupTool] } },
      steerTask,
    ).catch((error: unknown) => {
      steerFailure = error;
    });
    // The load ending while a steer is on its way (and the steer task with it), or the steer
    // task's leg failing, ends the steers; anything else is a failure of the run.
    const { sentAt, done: steering } = sendSteers(
      store,
      steerTask,
      () => loadDone || steerFailure !== undefined,
      () => performance.now(),
      (error) => {
        throw error;
      },
    );
    // Issue 36: a steer, an interrupting input and an approval decision, each timed to the model request.
    const people = await startPeople(
      store,
      () => loadDone,
      () => performance.now(),
    );
    const outcomes = await Promise.allSettled(ids.map((taskId) => runLeg({ store, agent, pacing }, taskId)));
    const wallMs = performance.now() - started;
    const runCpuUs = cpuUs(process.cpuUsage(runCpu));
    loadDone = true;
    lag.disable();
    const commits = subject.commits(store) - commitsBefore;
    await steering;
    await steerLeg;
    const personLatencies = await people.finish();
    for (const failure of people.failures) console.error(`live: ${key}, N = ${n}: ${failure}`);
    if (steerFailure !== undefined)
      console.error(`live: ${key}, N = ${n}: the steer task failed: ${String(steerFailure)}`);
    const completed = outcomes.filter((o) => o.status === "fulfilled" && o.value.status === "completed").length;
    // A leg whose lease could not be renewed in time (a stalled event loop) stops with LeaseLost.
    const failures = new Map<string, number>();
    for (const o of outcomes) {
      const why = o.status === "rejected" ? String((o.reason as { code?: string }).code ?? o.reason) : o.value.status;
      if (why !== "completed") failures.set(why, (failures.get(why) ?? 0) + 1);
    }
    if (failures.size > 0) console.error(`live: ${key}, N = ${n}: not completed: ${JSON.stringify([...failures])}`);
    const latencies = [...sentAt]
      .flatMap(([inputId, sent]) => {
        const applied = steer.appliedAt.get(inputId);
        return applied === undefined ? [] : [Math.max(0, applied - sent)];
      })
      .sort((a, b) => a - b);
    const rssMiB = (process.resourceUsage().maxRSS * 1024) / 2 ** 20;
    const ms = (ns: number) => ns / 1e6;
    const label = `${subject.name}, N = ${n}`;
    // Issue 21's goals, for SQLite at 10,000 tasks.
    const goal = (value: number) =>
      n >= 10_000 && key.startsWith("sqlite") ? { target: { value, higher: false } } : {};
    const rows: ResultRow[] = [
      { subject: label, metric: "tasks completed", unit: "%", samples: [(100 * completed) / n] },
      {
        subject: label,
        metric: "wall ÷ model time (3 s)",
        unit: "×",
        samples: [wallMs / (TURNS * MODEL_MS)],
        ...goal(1.2),
      },
      {
        subject: label,
        metric: `create ${n.toLocaleString("en-US")} tasks (startTask${key.startsWith("postgres") ? ", 100 at a time" : ", one by one"})`,
        unit: "ms",
        samples: [creationMs],
      },
      {
        subject: label,
        metric: "(creation + wall) ÷ model time (3 s)",
        unit: "×",
        samples: [(creationMs + wallMs) / (TURNS * MODEL_MS)],
      },
      // CPU time does not grow when other processes share the CPUs, as wall time does.
      { subject: label, metric: "CPU per task created", unit: "µs", samples: [creationCpuUs / n] },
      {
        subject: label,
        metric: "CPU per task run (3 turns, the steer task included)",
        unit: "µs",
        samples: [runCpuUs / n],
      },
      { subject: label, metric: "event-loop lag p50", unit: "ms", samples: [ms(lag.percentile(50))] },
      { subject: label, metric: "event-loop lag p99", unit: "ms", samples: [ms(lag.percentile(99))], ...goal(50) },
      { subject: label, metric: "event-loop lag max", unit: "ms", samples: [ms(lag.max)] },
      { subject: label, metric: "peak RSS", unit: "MiB", samples: [rssMiB], ...goal(1024) },
      { subject: label, metric: "commits per second", unit: "/s", samples: [commits / (wallMs / 1000)] },
      { subject: label, metric: "steers applied during the load", unit: "steers", samples: [latencies.length] },
    ];
    // No steer got through a saturated process: there is no latency to report (NaN is no JSON).
    if (latencies.length > 0)
      rows.push(
        { subject: label, metric: "steer latency p50", unit: "ms", samples: [percentileMs(latencies, 50)] },
        {
          subject: label,
          metric: "steer latency p99",
          unit: "ms",
          samples: [percentileMs(latencies, 99)],
          ...goal(100),
        },
      );
    // Sent (the call's start) → the model request carrying it: what a person waits for (issue 36).
    for (const [kind, sorted] of [
      ["steer", personLatencies.steer],
      ["interrupting input", personLatencies.interrupt],
      ["approval decision", personLatencies.decision],
    ] as const) {
      if (sorted.length === 0) continue;
      const metric = `${kind} → model request`;
      rows.push(
        { subject: label, metric: `${metric} p50`, unit: "ms", samples: [percentileMs(sorted, 50)] },
        { subject: label, metric: `${metric} p99`, unit: "ms", samples: [percentileMs(sorted, 99)], ...goal(100) },
        { subject: label, metric: `${metric}, count`, unit: "inputs", samples: [sorted.length] },
      );
    }
    if (subject.longestBatchMs !== undefined)
      rows.push({
        subject: label,
        metric: "longest batch (BEGIN … COMMIT)",
        unit: "ms",
        samples: [subject.longestBatchMs(store)],
      });
    return rows;
  } finally {
    if (key.startsWith("postgres")) await dropPostgres(store);
    else await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A `process.cpuUsage` difference, user and system, in µs. */
const cpuUs = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

/** The 1-, 5- and 15-minute load averages, as `uptime` prints them. */
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");

if (values.child !== undefined) {
  const [key, nText] = values.child.split(":");
  reportToParent(await runOne(key ?? "", Number(nText)));
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  const script = fileURLToPath(import.meta.url);
  const rows: ResultRow[] = [];
  for (const n of (values.n ?? "").split(",").map(Number)) {
    for (const entry of (values.store ?? "").split(",")) {
      // `postgres@1000`: that store at that N only (a comparison beside a subject run at every N).
      const [key = "", only] = entry.split("@");
      if (only !== undefined && Number(only) !== n) continue;
      console.error(`live: ${key}, N = ${n} … (load average ${load()})`);
      const before = rows.length;
      try {
        rows.push(
          ...(await runInChild(script, [
            "--child",
            `${key}:${n}`,
            "--pacing",
            pacing ? "on" : "off",
            "--checkpoints",
            checkpoints,
          ])),
        );
      } catch (error) {
        console.error(`live: ${key}, N = ${n} failed: ${String(error)}`);
      }
      // Each subject's rows as it ends, so a long run shows what it has so far.
      console.error(`live: ${key}, N = ${n} ended (load average ${load()})`);
      console.error(formatTable(rows.slice(before)));
    }
  }
  console.log(formatTable(rows));
  saveIfAsked("live", machine, rows);
}
