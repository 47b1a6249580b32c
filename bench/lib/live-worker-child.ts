/**
 * One worker process of bench/live.ts's `postgres-3w` subjects: what `sema worker` runs (a
 * `startWorkers` pool claiming runnable tasks from the shared PostgresStore), over the tasks the
 * parent created. Protocol, one line each way:
 *
 * - stdout `ready`: the store is open, LISTEN is up and the pool's connections are made;
 * - stdin `go`: start the pool (and the lag monitor, and counting writes);
 * - stdout `completed <count> <epoch ms>`: load tasks whose leg ended (lease released after
 *   `task_completed`) since the last such line, the time of the last of them;
 * - stdin `done`: the load is over (the steer task answers at its next step), stop and report:
 *   a line `RESULT_PREFIX` + JSON {@link WorkerReport}.
 *
 *   node --conditions=source live-worker-child.ts --schema S --steer-task ID --concurrency C [--group-commit off]
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Store, TaskEvent } from "@sema-agent/core";
import { lookupTool } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { createAgentRegistry, startWorkers, type WorkerPool } from "@sema-agent/worker";
import pg from "pg";
import { RESULT_PREFIX } from "./child.ts";
import { epochNow, loadModel, POSTGRES_URL, steerModel, type WorkerReport } from "./live-tasks.ts";

const { values } = parseArgs({
  options: {
    schema: { type: "string" },
    "steer-task": { type: "string" },
    concurrency: { type: "string" },
    "group-commit": { type: "string", default: "on" },
  },
});
const schema = values.schema ?? "";
const steerTask = values["steer-task"] ?? "";
const concurrency = Number(values.concurrency);
const LEASE_TTL_MS =
  process.env.SEMA_LIVE_LEASE_TTL_MS === undefined ? undefined : Number(process.env.SEMA_LIVE_LEASE_TTL_MS);

// A diagnostic (see live-workers.ts): a pool of this many connections, owned here, instead of the store's own 10.
const POOL_MAX = process.env.SEMA_LIVE_POOL_MAX === undefined ? undefined : Number(process.env.SEMA_LIVE_POOL_MAX);
const ownPool = POOL_MAX === undefined ? undefined : new pg.Pool({ connectionString: POSTGRES_URL, max: POOL_MAX });
ownPool?.on("error", () => undefined);
const base = await PostgresStore.open({
  ...(ownPool === undefined ? { connectionString: POSTGRES_URL } : { pool: ownPool }),
  schema,
  groupCommit: values["group-commit"] !== "off",
});
// Connection setup is not timed: LISTEN now, and every connection of the pool made (pg's default is 10).
await base.listening();
await Promise.all(Array.from({ length: POOL_MAX ?? 10 }, () => base.pool.query("SELECT 1")));

let goAt = 0;
let completed = 0;
let unreported = 0;
let lastCompletedAt = 0;
let flushing = false;
const endedWithAnswer = new Set<string>();
const steersApplied: Record<string, number> = {};
const failures: Record<string, number> = {};
const claims = { rounds: 0, tasks: 0, ms: 0, lastEndMs: 0 };

/** A load task's leg ended: report it on the next turn of the loop, with any others ending meanwhile. */
function legEnded(): void {
  completed++;
  unreported++;
  lastCompletedAt = epochNow();
  if (flushing) return;
  flushing = true;
  setImmediate(() => {
    flushing = false;
    process.stdout.write(`completed ${unreported} ${lastCompletedAt}\n`);
    unreported = 0;
  });
}

// The pool's store, watched: completions (the release after `task_completed`, where `runLeg`
// ends), the steer task's applications, and the claims.
const store: Store = new Proxy(base, {
  get(target, key) {
    if (key === "append")
      return async (taskId: string, events: TaskEvent[], options: Parameters<Store["append"]>[2]) => {
        const stored = await target.append(taskId, events, options);
        const now = epochNow();
        for (const event of stored) {
          if (event.type === "task_completed" && taskId !== steerTask) endedWithAnswer.add(taskId);
          else if (event.type === "human_input" && event.delivery === "applied" && event.inputId !== undefined)
            steersApplied[event.inputId] = now;
        }
        return stored;
      };
    if (key === "releaseLease")
      return async (taskId: string, token: string) => {
        try {
          await target.releaseLease(taskId, token);
        } finally {
          if (endedWithAnswer.delete(taskId)) legEnded();
        }
      };
    if (key === "claimRunnable")
      return async (options: Parameters<Store["claimRunnable"]>[0]) => {
        const started = epochNow();
        const claimed = await target.claimRunnable(options);
        const ended = epochNow();
        claims.rounds++;
        claims.tasks += claimed.length;
        claims.ms += ended - started;
        if (claimed.length > 0) claims.lastEndMs = ended - goAt;
        return claimed;
      };
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === "function" ? value.bind(target) : value;
  },
});

let loadDone = false;
const agents = createAgentRegistry(
  {
    live: { name: "live", model: loadModel(), tools: [lookupTool] },
    steer: { name: "steer", model: steerModel(() => loadDone), tools: [lookupTool] },
  },
  "live",
);
const lag = monitorEventLoopDelay({ resolution: 1 });
let pool: WorkerPool | undefined;
let before = { commits: 0, writes: 0 };
// The pool's queue (queries waiting for one of its 10 connections), every 50 ms from go to done.
const queue = { samples: 0, sum: 0, max: 0 };
let poolSampler: ReturnType<typeof setInterval> | undefined;

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line === "go" && pool === undefined) {
    before = base.writeStats;
    lag.enable();
    goAt = epochNow();
    poolSampler = setInterval(() => {
      queue.samples++;
      queue.sum += base.pool.waitingCount;
      queue.max = Math.max(queue.max, base.pool.waitingCount);
    }, 50);
    pool = startWorkers({
      store,
      agents,
      concurrency,
      // A diagnostic (see live-workers.ts): `sema worker --lease-ttl`.
      ...(LEASE_TTL_MS === undefined ? {} : { leaseTtlMs: LEASE_TTL_MS }),
      onError: (error) => {
        const code = String((error as { code?: unknown }).code ?? (error as Error).name ?? "error");
        failures[code] = (failures[code] ?? 0) + 1;
      },
    });
  } else if (line === "done" && pool !== undefined) {
    loadDone = true;
    lag.disable();
    clearInterval(poolSampler);
    const after = base.writeStats;
    const running = pool;
    lines.close();
    void (async () => {
      const stopped = await running.stop({ deadlineMs: 10_000 });
      const ms = (ns: number) => ns / 1e6;
      const report: WorkerReport = {
        pid: process.pid,
        completed,
        lagP50Ms: ms(lag.percentile(50)),
        lagP99Ms: ms(lag.percentile(99)),
        lagMaxMs: ms(lag.max),
        rssMiB: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
        commits: after.commits - before.commits,
        writes: after.writes - before.writes,
        failures,
        steersApplied,
        claims,
        abandoned: stopped.abandoned.length,
        poolQueue: { mean: queue.sum / Math.max(1, queue.samples), max: queue.max },
      };
      // Written out before the exit: a report over the pipe's 64 KiB (a steer's time per entry)
      // was cut short by exiting right after the write.
      await new Promise<void>((resolve) =>
        process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(report)}\n`, () => resolve()),
      );
      await base.close();
      await ownPool?.end();
      // Nothing is left to do: end now rather than when stdin's pipe closes.
      process.exit(0);
    })();
  }
});

process.stdout.write("ready\n");
