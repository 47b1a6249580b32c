/**
 * What bench/live.ts runs, in one process or in worker processes: the 3-turn load task's script
 * (1 s a turn, a `lookup` call in the first two), the steer task's model (20 ms steps until the
 * load is over), the steers sent during the load, and PostgreSQL's schema naming and clean-up.
 */
import { type Store, sendInput } from "@sema-agent/core";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import pg from "pg";

/** The database every PostgreSQL subject uses (a fresh schema each run). */
export const POSTGRES_URL = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** One model turn of a load task, ms (real timers: it is a benchmark). */
export const MODEL_MS = 1000;
/** Model turns per load task. */
export const TURNS = 3;
/** A steer is sent this long after the previous one returned, ms. */
export const STEER_EVERY_MS = 100;
/** The steer task's model steps: short, so a steer waits for a step boundary, not a 1 s turn. */
export const STEER_STEP_MS = 20;

/** The load task's turns: the first two look a key up, the third answers. */
export const LOAD_TURNS: ScriptedTurn[] = Array.from({ length: TURNS }, (_, i) =>
  i === TURNS - 1
    ? { text: "Done.", delayMs: MODEL_MS }
    : { text: "Checking.", toolCalls: [{ name: "lookup", input: { key: `k${i}` } }], delayMs: MODEL_MS },
);

/** The load tasks' model: one for all of a process's legs (by transcript). */
export function loadModel(): ScriptedModel {
  return new ScriptedModel(LOAD_TURNS, { mode: "by-transcript", recordRequests: false });
}

/** The steer task's model: a `lookup` call every 20 ms step until `done()`, then the answer. */
export function steerModel(done: () => boolean): ScriptedModel {
  const step = (): ScriptedTurn =>
    done()
      ? { text: "Steered.", delayMs: STEER_STEP_MS }
      : { toolCalls: [{ name: "lookup", input: { key: "s" } }], delayMs: STEER_STEP_MS };
  return new ScriptedModel(
    Array.from({ length: 100_000 }, () => step),
    { mode: "by-transcript", recordRequests: false },
  );
}

/** What a worker process reports when told `done`. */
export interface WorkerReport {
  pid: number;
  /** Load tasks whose leg this process ran to completion. */
  completed: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  rssMiB: number;
  /** `writeStats` from go to done: statements carrying writes, and the writes they carried. */
  commits: number;
  writes: number;
  /** Legs or polls that failed, by error code. */
  failures: Record<string, number>;
  /** The steer task's applied inputs committed here: inputId → epoch ms of the append's return. */
  steersApplied: Record<string, number>;
  /** The pool's `claimRunnable` calls: how many, tasks claimed, time in them, the last's end after go. */
  claims: { rounds: number; tasks: number; ms: number; lastEndMs: number };
  /** Legs still running when the pool's stop deadline passed. */
  abandoned: number;
  /** Queries waiting for a connection of the store's pool, sampled every 50 ms: mean and max. */
  poolQueue: { mean: number; max: number };
}

/** Milliseconds since the epoch, sub-ms: comparable between processes on this machine. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/** The `p`th percentile of ascending `sorted` (NaN when empty). */
export const percentileMs = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** A schema name for one run, from something unique to it (a temp dir's suffix). */
export function liveSchema(unique: string): string {
  return `bench_live_${unique
    .slice(-6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "_")}`;
}

/** Drop a run's schema (its stores closed first). */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Send a steer to `taskId` every `STEER_EVERY_MS` (after the previous one returned) until
 * `stop()`; each sent steer's time (by `clock`) goes in the returned map. A failed send ends the
 * steers: when `stop()` already holds it is the load ending, otherwise `onFailure` decides
 * (rethrow, or note it and stop).
 */
export function sendSteers(
  store: Store,
  taskId: string,
  stop: () => boolean,
  clock: () => number,
  onFailure: (error: unknown, inputId: string) => void,
): { sentAt: Map<string, number>; done: Promise<void> } {
  const sentAt = new Map<string, number>();
  let steers = 0;
  const done = (async () => {
    while (!stop()) {
      await new Promise((resolve) => setTimeout(resolve, STEER_EVERY_MS));
      if (stop()) break;
      const inputId = `steer-${steers++}`;
      try {
        await sendInput(store, taskId, { text: `Steer ${inputId}`, inputId });
      } catch (error) {
        if (stop()) break;
        onFailure(error, inputId);
        break;
      }
      sentAt.set(inputId, clock());
    }
  })();
  return { sentAt, done };
}
