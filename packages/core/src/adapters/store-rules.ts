/**
 * The rules every store adapter applies the same way: how an event is stamped, when a lease is
 * live, who may take it, which tasks a worker should run, how a listing cursor looks. Adapters
 * keep only the storage; the semantics live here once.
 */

import { copyKeysInto, frozenCopy, jsonCopy } from "../core/canonical-json.ts";
import { nextWakeAt } from "../core/task-summary.ts";
import { fromBase64Url, toBase64Url } from "../internal/base64url.ts";
import { newId } from "../internal/ids.ts";
import type { CountChildrenOptions, Lease, ListTasksOptions, Snapshot, TaskPage, TaskRecord } from "../ports/store.ts";
import { InvalidInputError, LeaseHeldError, LeaseLostError } from "../protocol/errors.ts";
import type { LeaseHolder, StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";

/** The stored form: identity first (`taskId`, `seq`, `at`), then the event's own keys. */
export function stampEvent(event: TaskEvent, taskId: string, seq: number, at: string): StoredEvent {
  return { taskId, seq, at, ...event } as StoredEvent;
}

/**
 * `stampEvent` and a deep-frozen copy in one pass: the form an in-memory store keeps, which no
 * caller can change through an object it still holds.
 */
export function frozenStampedEvent(event: TaskEvent, taskId: string, seq: number, at: string): StoredEvent {
  return Object.freeze(copyKeysInto({ taskId, seq, at }, event, frozenCopy)) as unknown as StoredEvent;
}

/** The JSON text a store writes for a snapshot's state: the writer's own, or serialized here. */
export function snapshotStateText(snapshot: Snapshot): string {
  return snapshot.stateJson ?? JSON.stringify(snapshot.state);
}

/** A new lease for `holder` (copied), expiring at `expiresMs` by the store's clock. */
export function newLease(taskId: string, holder: LeaseHolder, expiresMs: number): Lease {
  return { taskId, token: newId(), holder: jsonCopy(holder), expiresAt: new Date(expiresMs).toISOString() };
}

/** Whether there is a lease and it has not expired at `nowMs` (by the store's clock). */
export function isLeaseLive(lease: Lease | undefined, nowMs: number): lease is Lease {
  return lease !== undefined && liveAt(timeOf(lease.expiresAt), nowMs);
}

/** A lease expiring at `expiresMs` is live at `nowMs` until that very millisecond, not at it. */
function liveAt(expiresMs: number | null | undefined, nowMs: number): boolean {
  return expiresMs !== undefined && expiresMs !== null && expiresMs > nowMs;
}

/**
 * The check of every write made under a lease (an append with `leaseToken`, a renewal): the task's
 * lease must be live at `nowMs` and be the one `token` names, else `LeaseLost` — it expired, was
 * released or was taken over, and the caller must stop before its next side effect.
 */
export function assertLeaseHeld(
  taskId: string,
  lease: Lease | undefined,
  token: string,
  nowMs: number,
): asserts lease is Lease {
  assertLeaseColumnsHeld(taskId, lease?.token, lease === undefined ? undefined : timeOf(lease.expiresAt), token, nowMs);
}

/**
 * `assertLeaseHeld` on a lease's stored columns (its token and its expiry in ms), for a store
 * that checks them without building the lease.
 */
export function assertLeaseColumnsHeld(
  taskId: string,
  leaseToken: string | null | undefined,
  expiresMs: number | null | undefined,
  token: string,
  nowMs: number,
): void {
  if (leaseToken !== token || !liveAt(expiresMs, nowMs)) throw new LeaseLostError(taskId);
}

// Every append checks its lease and stamps its events: both memoize the last value, which
// consecutive appends of a running leg share (a lease is renewed every few seconds at most).
let lastIsoMs = Number.NaN;
let lastIso = "";
let lastParsed = "";
let lastParsedMs = Number.NaN;

/** The ISO 8601 text of a time in ms (what stores stamp as `at`). Throws `RangeError` for NaN. */
export function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIso;
}

/** `Date.parse`, remembering the last text. */
function timeOf(iso: string): number {
  if (iso !== lastParsed) {
    lastParsedMs = Date.parse(iso);
    lastParsed = iso;
  }
  return lastParsedMs;
}

/**
 * Throws `LeaseHeld` when another holder's lease is live; the same holder may take it again, and
 * `replaceHolderId` names a holder whose live lease may be taken over.
 */
export function assertLeaseAvailable(
  taskId: string,
  current: Lease | undefined,
  holder: LeaseHolder,
  nowMs: number,
  replaceHolderId?: string,
): void {
  if (isLeaseLive(current, nowMs) && current.holder.id !== holder.id && current.holder.id !== replaceHolderId) {
    throw new LeaseHeldError(taskId, current.holder, current.expiresAt);
  }
}

/** Throws `InvalidInput` unless a lease's `ttlMs` is a positive finite number. */
export function assertTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new InvalidInputError(`lease ttlMs must be a positive number, got ${ttlMs}`);
}

/**
 * Whether a worker should start (or recover) a leg for this task now. Time only ever makes a task
 * runnable (a timer falls due), never stops it being so: adapters rely on that to pre-filter with
 * what is runnable at the end of time and ask this rule again at the time of the query.
 */
export function isRunnableRecord(record: TaskRecord, nowMs: number): boolean {
  return !isLeaseLive(record.lease, nowMs) && wantsWorkerAt(record.summary, nowMs);
}

/** Whether a task with this summary is runnable at `nowMs` when no lease is live. */
function wantsWorkerAt(summary: TaskSummary, nowMs: number): boolean {
  // A task still "running" with no live lease lost its host mid-leg: it needs recovery.
  if (summary.runnable || summary.status === "running") return true;
  const wake = nextWakeAt(summary);
  return wake !== undefined && wake <= nowMs && summary.status !== "cancelled";
}

/**
 * The flag SQL stores index (`wants_worker`): whether the task is, or will become as time passes,
 * runnable once no lease is live — the rule asked about the end of time with the lease left out
 * (the query checks the lease, and the listing asks `isRunnableRecord` again at the time of the
 * call). So the flag is a superset of what is runnable at any moment, as long as time can only
 * make a task runnable (a timer falls due), never stop it being so.
 */
export function wantsWorker(summary: TaskSummary): boolean {
  return wantsWorkerAt(summary, Number.MAX_SAFE_INTEGER);
}

/**
 * The fork source SQL stores index (`forked_from`) for `listTasks({ forkedFrom })`: the task this
 * one is a fork or an import of (`summary.forkedFrom.taskId`), else null. Written with the summary.
 */
export function forkSourceOf(summary: TaskSummary): string | null {
  return summary.forkedFrom?.taskId ?? null;
}

/** The `limit` to use: `fallback` when absent, else an integer from 1 to `max` (`InvalidInput` otherwise). */
export function assertLimit(limit: number | undefined, fallback: number, max = 10_000): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidInputError(`limit must be an integer from 1 to ${max}, got ${limit}`);
  }
  return limit;
}

/** The `afterSeq` to use: 0 when absent, else a non-negative integer (`InvalidInput` otherwise). */
export function assertAfterSeq(afterSeq: number | undefined): number {
  if (afterSeq === undefined) return 0;
  if (!Number.isInteger(afterSeq) || afterSeq < 0)
    throw new InvalidInputError(`afterSeq must be a non-negative integer, got ${afterSeq}`);
  return afterSeq;
}

/** Listing order is newest first by (createdAt, taskId); a cursor is the last row's position. */
export interface ListPosition {
  createdAt: string;
  taskId: string;
}

/** The opaque `nextCursor` for a listing position (base64url JSON). */
export function encodeCursor(position: ListPosition): string {
  return toBase64Url(JSON.stringify([position.createdAt, position.taskId]));
}

/** The listing position of a cursor from `encodeCursor`; `InvalidInput` for a malformed one. */
export function decodeCursor(cursor: string): ListPosition {
  try {
    const [createdAt, taskId] = JSON.parse(fromBase64Url(cursor)) as unknown[];
    if (typeof createdAt === "string" && typeof taskId === "string") return { createdAt, taskId };
  } catch {
    // fall through to the typed error
  }
  throw new InvalidInputError("malformed cursor", { cursor });
}

/** True when `a` comes after `b` in listing order (older). */
export function isAfterCursor(a: ListPosition, cursor: ListPosition): boolean {
  return a.createdAt < cursor.createdAt || (a.createdAt === cursor.createdAt && a.taskId < cursor.taskId);
}

/** Throws `InvalidInput` unless a snapshot's `seq` is within the log (1 to `lastSeq`). */
export function assertSnapshotSeq(seq: number, lastSeq: number): void {
  if (!Number.isInteger(seq) || seq < 1 || seq > lastSeq) {
    throw new InvalidInputError(`snapshot seq must be within the log (1..${lastSeq}), got ${seq}`);
  }
}

/**
 * How much of an objective `listTasks({ objectiveContains })` searches: its first this many
 * characters. A prefix, so the search key SQL stores keep beside each task stays small whatever
 * the objective's size, and so does the cost of testing one row.
 */
export const OBJECTIVE_SEARCH_CHARS = 1000;

/** The text `objectiveContains` is searched in (SQL stores keep it in a column): the objective's prefix, lowered. */
export function objectiveSearchKey(objective: string): string {
  return objective.slice(0, OBJECTIVE_SEARCH_CHARS).toLowerCase();
}

/** A page of `listTasks` asked for: its size (default 50, at most 1000), the position it starts after, the lowered search. */
export function taskPageRequest(options: ListTasksOptions): {
  limit: number;
  cursor: ListPosition | undefined;
  search: string | undefined;
} {
  const limit = assertLimit(options.limit, 50, 1000);
  if (options.rootsOnly === true && options.parentTaskId !== undefined)
    throw new InvalidInputError("rootsOnly and parentTaskId exclude each other");
  const text = options.objectiveContains;
  if (text !== undefined && (text.length < 1 || text.length > OBJECTIVE_SEARCH_CHARS))
    throw new InvalidInputError(`objectiveContains must be 1 to ${OBJECTIVE_SEARCH_CHARS} characters`);
  return {
    limit,
    cursor: options.cursor === undefined ? undefined : decodeCursor(options.cursor),
    search: text?.toLowerCase(),
  };
}

/** The most parents one `countChildren` may ask about (a listing's largest page). */
export const MAX_CHILD_COUNT_IDS = 1000;

/**
 * The distinct ids of a `countChildren` call, in the order asked; `InvalidInput` for more than
 * `MAX_CHILD_COUNT_IDS` of them (repeats included) or an id that is not a non-empty string.
 */
export function childCountIds(options: CountChildrenOptions): string[] {
  const { taskIds } = options;
  if (!Array.isArray(taskIds) || taskIds.length > MAX_CHILD_COUNT_IDS)
    throw new InvalidInputError(`countChildren takes at most ${MAX_CHILD_COUNT_IDS} task ids`);
  for (const taskId of taskIds)
    if (typeof taskId !== "string" || taskId.length === 0)
      throw new InvalidInputError("countChildren's task ids must be non-empty strings");
  return [...new Set(taskIds)];
}

/** The answer of `countChildren`: every id in `ids`, with its count in `found` or 0. */
export function childCountsOf(ids: readonly string[], found: ReadonlyMap<string, number>): Map<string, number> {
  return new Map(ids.map((taskId) => [taskId, found.get(taskId) ?? 0]));
}

/** Whether a task passes `listTasks`' filters other than status, fork source and cursor (memory store). */
export function matchesTaskFilters(
  created: { agent?: string; objective: string; parentTaskId?: string },
  options: ListTasksOptions,
  search: string | undefined,
): boolean {
  if (options.agent !== undefined && created.agent !== options.agent) return false;
  if (options.parentTaskId !== undefined && created.parentTaskId !== options.parentTaskId) return false;
  if (options.rootsOnly === true && created.parentTaskId !== undefined) return false;
  return search === undefined || objectiveSearchKey(created.objective).includes(search);
}

/**
 * The page out of `rows` in listing order, fetched `limit + 1` (or more) so the store knows
 * whether more follow: the first `limit` as records, and a cursor after the last when they do.
 */
export function taskPageOf<Row>(rows: readonly Row[], limit: number, recordOf: (row: Row) => TaskRecord): TaskPage {
  const tasks = rows.slice(0, limit).map(recordOf);
  const last = tasks.at(-1);
  return rows.length > limit && last !== undefined ? { tasks, nextCursor: encodeCursor(last) } : { tasks };
}

/** A blob's digest: lowercase-hex SHA-256. */
const BLOB_DIGEST = /^[0-9a-f]{64}$/;

/** What every store checks of a `putBlob`: a SHA-256 digest and bytes (`InvalidInput` otherwise). */
export function assertBlob(blob: { digest: string; bytes: Uint8Array }): void {
  assertBlobDigest(blob.digest);
  if (!(blob.bytes instanceof Uint8Array)) throw new InvalidInputError("a blob's bytes must be a Uint8Array");
}

/** A `getBlob` / `putBlob` digest must be lowercase-hex SHA-256 (`InvalidInput` otherwise). */
export function assertBlobDigest(digest: string): void {
  if (typeof digest !== "string" || !BLOB_DIGEST.test(digest))
    throw new InvalidInputError("a blob digest is the lowercase-hex SHA-256 of its bytes", { digest });
}
