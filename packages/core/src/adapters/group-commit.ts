/**
 * Group commit, the options shared by the SQL stores: writes that concurrent legs make within one
 * tick (or a short window) go to the database as one transaction, the way a database group-commits
 * its WAL, while each caller's write stays atomic and conditional on its own. Checked where given,
 * so a bad value is a `ConfigError` naming it before the store opens.
 */
import { ConfigError, type ConfigProblem } from "../protocol/errors.ts";

/**
 * How a store coalesces concurrent writes into one transaction (`false`: every write is its own).
 * A batch is committed at the end of the tick its first write arrived in (or `windowMs` later),
 * or as soon as it holds `maxBatch` writes.
 */
export interface GroupCommitOptions {
  /**
   * How long the first write of a batch waits for others, in ms. Default 0: until the end of the
   * current tick (`setImmediate`), so a lone writer waits for nothing.
   */
  windowMs?: number;
  /** At most this many writes in one transaction (1 … 10,000). Default 256. */
  maxBatch?: number;
}

/** {@link GroupCommitOptions} with the defaults filled in; `undefined` when group commit is off. */
export interface GroupCommitSettings {
  windowMs: number;
  maxBatch: number;
}

const DEFAULTS: GroupCommitSettings = { windowMs: 0, maxBatch: 256 };
const KEYS = new Set(["windowMs", "maxBatch"]);

/**
 * The settings of `given` (`undefined` or `true`: the defaults; `false`: off, `undefined` back), or
 * a `ConfigError` naming `where` (e.g. `SqliteStore`) and every bad field.
 */
export function groupCommitSettings(
  where: string,
  given: GroupCommitOptions | boolean | undefined,
): GroupCommitSettings | undefined {
  if (given === false) return undefined;
  if (given === undefined || given === true) return { ...DEFAULTS };
  const problems: ConfigProblem[] = [];
  if (typeof given !== "object" || given === null) {
    throw new ConfigError(where, [{ path: "groupCommit", message: "must be true, false or { windowMs, maxBatch }" }]);
  }
  const unknown = Object.keys(given).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) {
    problems.push({ path: "groupCommit", message: `has unknown keys ${unknown.join(", ")}`, unknownKeys: unknown });
  }
  const { windowMs = DEFAULTS.windowMs, maxBatch = DEFAULTS.maxBatch } = given;
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs < 0 || windowMs > 1000) {
    problems.push({ path: "groupCommit.windowMs", message: "must be a number of ms from 0 to 1000" });
  }
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > 10_000) {
    problems.push({ path: "groupCommit.maxBatch", message: "must be a whole number from 1 to 10000" });
  }
  if (problems.length > 0) throw new ConfigError(where, problems);
  return { windowMs, maxBatch };
}

/** `setImmediate` where the runtime has it (Node, Bun, Deno), else a zero timeout. */
type Immediate = (callback: () => void) => unknown;

/**
 * Call `flush` once at the end of this tick (`windowMs` 0) or after `windowMs`; returns the
 * canceller. The timer keeps the process alive: a write waiting in it is not yet durable.
 */
export function scheduleFlush(windowMs: number, flush: () => void): () => void {
  const immediate = (globalThis as { setImmediate?: Immediate }).setImmediate;
  if (windowMs === 0 && immediate !== undefined) {
    const handle = immediate(flush);
    const clear = (globalThis as { clearImmediate?: (handle: unknown) => void }).clearImmediate;
    return () => clear?.(handle);
  }
  const timer = setTimeout(flush, windowMs);
  return () => clearTimeout(timer);
}
