/**
 * bench/live.ts's `postgres-3w` subjects: the load on PostgreSQL run by 3 worker processes, as
 * `sema worker` nodes share it. This process creates the tasks (the steer task first) in a fresh
 * schema, starts the workers (`live-worker-child.ts`: a `startWorkers` pool each, claiming with
 * `claimRunnable`), waits until each is connected, then says go and steers the steer task every
 * 100 ms from its own store, as an API node would.
 *
 * Wall: from writing `go` to the children to the end of the last load task's leg (its lease
 * released after `task_completed`), stamped by the child that ran it and reported at once, so
 * no poll of ours adds to it. Steer latency: from `sendInput` resolving here to the return of
 * the leg's append that applies it (`human_input`, delivery `applied`) in the child that runs
 * the steer task, both on the epoch clock of this machine (`performance.timeOrigin + now()`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startTask } from "@sema-agent/core";
import { PostgresStore } from "@sema-agent/postgres";
import { RESULT_PREFIX } from "./child.ts";
import {
  dropSchema,
  epochNow,
  liveSchema,
  MODEL_MS,
  POSTGRES_URL,
  percentileMs,
  sendSteers,
  TURNS,
  type WorkerReport,
} from "./live-tasks.ts";
import type { ResultRow } from "./table.ts";

/** Worker processes. */
const WORKERS = 3;
/** Slots beyond an even share, so a worker that starts claiming first is not capped below it. */
const SLACK = 64;
/**
 * A diagnostic, not part of the figures: `SEMA_LIVE_PRINCIPALS=100` spreads the load tasks over
 * that many principals (default 1, `local`), so they do not all count usage on one row;
 * `SEMA_LIVE_LEASE_TTL_MS=120000` gives the workers' legs that lease instead of the default 30 s;
 * `SEMA_LIVE_POOL_MAX=25` gives each worker's store a pool of that many connections instead of 10.
 */
const PRINCIPALS = Math.max(1, Number(process.env.SEMA_LIVE_PRINCIPALS ?? 1));
/** The run stops if no load task ended for this long (a lost lease is retried only after 30 s). */
const STALL_MS = 90_000;

const CHILD = fileURLToPath(new URL("./live-worker-child.ts", import.meta.url));

interface Worker {
  proc: ChildProcess;
  ready: Promise<void>;
  report: Promise<WorkerReport>;
  send(line: string): void;
}

/** Start one worker process; `onCompleted` hears its completion lines. */
function startWorker(args: readonly string[], onCompleted: (count: number, at: number) => void): Worker {
  const proc = spawn(process.execPath, ["--conditions=source", "--no-warnings", CHILD, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let markReady: () => void = () => undefined;
  let deliver: (report: WorkerReport) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    proc.once("close", (code) => reject(new Error(`worker ${proc.pid} exited ${code} before it was ready`)));
  });
  const report = new Promise<WorkerReport>((resolve, reject) => {
    deliver = resolve;
    fail = reject;
  });
  // Whichever is not awaited yet must not be an unhandled rejection.
  ready.catch(() => undefined);
  report.catch(() => undefined);
  let buffered = "";
  proc.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line === "ready") markReady();
      else if (line.startsWith("completed ")) {
        const [, count, at] = line.split(" ");
        onCompleted(Number(count), Number(at));
      } else if (line.startsWith(RESULT_PREFIX)) deliver(JSON.parse(line.slice(RESULT_PREFIX.length)) as WorkerReport);
      else if (line !== "") process.stdout.write(`${line}\n`);
      newline = buffered.indexOf("\n");
    }
  });
  // "close", not "exit": the report line may still be in the pipe when the process has exited.
  proc.once("close", (code) => fail(new Error(`worker ${proc.pid} exited ${code} without a report`)));
  return { proc, ready, report, send: (line) => proc.stdin?.write(`${line}\n`) };
}

/** The load on PostgreSQL with 3 worker processes, group commit on or off: the rows of that run. */
export async function runWithWorkers(n: number, groupCommit: boolean, name: string): Promise<ResultRow[]> {
  const schema = liveSchema(randomBytes(4).toString("hex"));
  const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema, groupCommit });
  const workers: Worker[] = [];
  try {
    // The steer task first: the oldest task, so the workers' first claims (oldest first) take it.
    const steerTask = await startTask(store, { objective: "Take steers", agent: "steer" });
    for (let i = 0; i < n; i += 100) {
      const chunk = Array.from({ length: Math.min(100, n - i) }, (_, j) => `Live task ${i + j}`);
      await Promise.all(
        chunk.map((objective, j) =>
          startTask(store, PRINCIPALS === 1 ? { objective } : { objective, principal: `p${(i + j) % PRINCIPALS}` }),
        ),
      );
    }
    let completed = 0;
    let lastCompletedAt = 0;
    let progressAt = epochNow();
    let allDone: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const onCompleted = (count: number, at: number) => {
      completed += count;
      lastCompletedAt = Math.max(lastCompletedAt, at);
      progressAt = epochNow();
      if (completed >= n) allDone();
    };
    const concurrency = Math.ceil(n / WORKERS) + SLACK;
    const args = ["--schema", schema, "--steer-task", steerTask, "--concurrency", String(concurrency)];
    if (!groupCommit) args.push("--group-commit", "off");
    for (let i = 0; i < WORKERS; i++) workers.push(startWorker(args, onCompleted));
    await Promise.all(workers.map((worker) => worker.ready));

    const goAt = epochNow();
    for (const worker of workers) worker.send("go");
    let loadDone = false;
    const { sentAt, done: steering } = sendSteers(
      store,
      steerTask,
      () => loadDone,
      epochNow,
      (error, inputId) => console.error(`live: the steer ${inputId} failed: ${String(error)}`),
    );
    // A stalled run (legs lost, retried only when their leases expire) ends after STALL_MS without progress.
    let checks = 0;
    const stallCheck = setInterval(() => {
      if (epochNow() - progressAt > STALL_MS) allDone();
      // A long run says how far it is every 10 s.
      if (++checks % 10 === 0) console.error(`live: ${name}, N = ${n}: ${completed} tasks completed after ${checks} s`);
    }, 1000);
    await finished;
    clearInterval(stallCheck);
    loadDone = true;
    const wallMs = (completed >= n ? lastCompletedAt : epochNow()) - goAt;
    for (const worker of workers) worker.send("done");
    const reports = await Promise.all(workers.map((worker) => worker.report));
    await steering;

    const [row] = (
      await store.pool.query<{ done: number }>(
        `SELECT count(*)::int AS done FROM "${schema}".tasks WHERE status = 'completed' AND task_id <> $1`,
        [steerTask],
      )
    ).rows;
    const failures: Record<string, number> = {};
    for (const report of reports)
      for (const [code, count] of Object.entries(report.failures)) failures[code] = (failures[code] ?? 0) + count;
    if (Object.keys(failures).length > 0)
      console.error(`live: ${name}, N = ${n}: failures ${JSON.stringify(failures)}`);
    const applied: Record<string, number> = Object.assign({}, ...reports.map((report) => report.steersApplied));
    const latencies = [...sentAt]
      .flatMap(([inputId, sent]) => {
        const at = applied[inputId];
        return at === undefined ? [] : [Math.max(0, at - sent)];
      })
      .sort((a, b) => a - b);
    const { SEMA_LIVE_LEASE_TTL_MS: ttl, SEMA_LIVE_POOL_MAX: poolMax } = process.env;
    const label = `${name}${PRINCIPALS === 1 ? "" : `, ${PRINCIPALS} principals`}${ttl === undefined ? "" : `, lease ${ttl} ms`}${poolMax === undefined ? "" : `, pools of ${poolMax}`}, N = ${n}`;
    const worst = (pick: (report: WorkerReport) => number) => Math.max(...reports.map(pick));
    const tenThousand = n >= 10_000;
    const rows: ResultRow[] = [
      { subject: label, metric: "tasks completed", unit: "%", samples: [(100 * (row?.done ?? 0)) / n] },
      {
        subject: label,
        metric: "wall ÷ model time (3 s)",
        unit: "×",
        samples: [wallMs / (TURNS * MODEL_MS)],
        ...(tenThousand ? { target: { value: 1.2, higher: false } } : {}),
      },
      { subject: label, metric: "event-loop lag p50, worst worker", unit: "ms", samples: [worst((r) => r.lagP50Ms)] },
      {
        subject: label,
        metric: "event-loop lag p99, worst worker",
        unit: "ms",
        samples: [worst((r) => r.lagP99Ms)],
        ...(tenThousand ? { target: { value: 50, higher: false } } : {}),
      },
      { subject: label, metric: "event-loop lag max, worst worker", unit: "ms", samples: [worst((r) => r.lagMaxMs)] },
      { subject: label, metric: "peak RSS, worst worker", unit: "MiB", samples: [worst((r) => r.rssMiB)] },
      {
        subject: label,
        metric: "commits per second (all workers)",
        unit: "/s",
        samples: [reports.reduce((sum, r) => sum + r.commits, 0) / (wallMs / 1000)],
      },
      { subject: label, metric: "steers applied during the load", unit: "steers", samples: [latencies.length] },
    ];
    if (latencies.length > 0)
      rows.push(
        { subject: label, metric: "steer latency p50", unit: "ms", samples: [percentileMs(latencies, 50)] },
        { subject: label, metric: "steer latency p99", unit: "ms", samples: [percentileMs(latencies, 99)] },
      );
    reports.forEach((report, i) => {
      const each = `${label}, worker ${i + 1}`;
      rows.push(
        { subject: each, metric: "load tasks run to completion", unit: "tasks", samples: [report.completed] },
        { subject: each, metric: "event-loop lag p50", unit: "ms", samples: [report.lagP50Ms] },
        { subject: each, metric: "event-loop lag p99", unit: "ms", samples: [report.lagP99Ms] },
        { subject: each, metric: "event-loop lag max", unit: "ms", samples: [report.lagMaxMs] },
        { subject: each, metric: "peak RSS", unit: "MiB", samples: [report.rssMiB] },
        {
          subject: each,
          metric: "queries waiting for a connection, mean",
          unit: "queries",
          samples: [report.poolQueue.mean],
        },
        {
          subject: each,
          metric: "queries waiting for a connection, max",
          unit: "queries",
          samples: [report.poolQueue.max],
        },
        { subject: each, metric: "claim rounds", unit: "rounds", samples: [report.claims.rounds] },
        { subject: each, metric: "time in claimRunnable", unit: "ms", samples: [report.claims.ms] },
        {
          subject: each,
          metric: "last claim that took tasks, ended after go",
          unit: "ms",
          samples: [report.claims.lastEndMs],
        },
      );
    });
    return rows;
  } finally {
    for (const worker of workers) if (worker.proc.exitCode === null) worker.proc.kill();
    await store.close();
    await dropSchema(schema);
  }
}
