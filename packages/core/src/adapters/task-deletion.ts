/**
 * The rules of deleting tasks, the same in every store: which task is live (never deleted), when
 * a family may go, and the `listFinished` page (oldest change first, by a cursor of its own).
 */

import { fromBase64Url, toBase64Url } from "../internal/base64url.ts";
import type { FinishedStatus, ListFinishedOptions, TaskPage, TaskRecord } from "../ports/store.ts";
import { InvalidInputError, TaskLiveError } from "../protocol/errors.ts";
import type { TaskStatus } from "../protocol/task-summary.ts";
import { assertLimit, isLeaseLive, wantsWorker } from "./store-rules.ts";

/**
 * How long after a `putBlob` of bytes a store already holds the blob stays even when no event
 * references it (1 hour): a task that uploads bytes and appends the event naming them a moment
 * later must not lose them to a prune that deletes another task which referenced the same bytes,
 * in between. Only such a put (the bytes were there) can race so: bytes put for the first time
 * were no deleted task's. A blob kept so, and never referenced after, stays.
 */
export const BLOB_GRACE_MS = 3_600_000;

/** Every finished status, in a fixed order. */
export const FINISHED_STATUSES: readonly FinishedStatus[] = ["completed", "failed", "cancelled"];

/** Whether `status` is one a task ends in. */
export function isFinishedStatus(status: TaskStatus): status is FinishedStatus {
  return (FINISHED_STATUSES as readonly string[]).includes(status);
}

/**
 * Why this task is live, or `undefined` when it may be deleted: it has ended, holds no live
 * lease, has no work pending (inputs, timers, a report to its parent) and will get none by itself.
 */
export function liveReason(record: TaskRecord, nowMs: number): string | undefined {
  const { summary } = record;
  if (!isFinishedStatus(summary.status)) return summary.status;
  if (isLeaseLive(record.lease, nowMs)) return "a leg holds its lease";
  if (summary.parentReport !== undefined) return "its parent has not been told how it ended";
  if (wantsWorker(summary)) return "it has work pending";
  return undefined;
}

/** A task and its relatives, as a store read them inside the deleting transaction. */
export interface TaskFamily {
  task: TaskRecord;
  /** Its parent, the parent's parent …, as far as they exist. */
  ancestors: readonly TaskRecord[];
  /** Its children, theirs …, parents before children. */
  descendants: readonly TaskRecord[];
}

/**
 * Throws `TaskLive` unless the whole family may go: the task and every descendant finished (see
 * {@link liveReason}), and no ancestor live (a live parent may still read its child's log).
 */
export function assertDeletable(family: TaskFamily, nowMs: number): void {
  const { task } = family;
  const own = liveReason(task, nowMs);
  if (own !== undefined) throw new TaskLiveError(task.taskId, own);
  for (const ancestor of family.ancestors) {
    const reason = liveReason(ancestor, nowMs);
    if (reason !== undefined)
      throw new TaskLiveError(task.taskId, `its ancestor ${ancestor.taskId} is live: ${reason}`);
  }
  for (const descendant of family.descendants) {
    const reason = liveReason(descendant, nowMs);
    if (reason !== undefined)
      throw new TaskLiveError(task.taskId, `its descendant ${descendant.taskId} is live: ${reason}`);
  }
}

/** Where a `listFinished` page ends: the last task's `updatedAt` and id (oldest change first). */
export interface FinishedPosition {
  updatedAt: string;
  taskId: string;
}

/** A `listFinished` page asked for, checked: size, statuses, the time as ISO text, and its cursor. */
export interface FinishedPageRequest {
  limit: number;
  statuses: readonly FinishedStatus[];
  /** `updatedBeforeMs` as ISO-8601, which compares as the stored `updatedAt` text does. */
  updatedBefore: string;
  principal?: string;
  cursor?: FinishedPosition;
}

/** The checked form of `options`; `InvalidInput` for a bad limit, status, time or cursor. */
export function finishedPageRequest(options: ListFinishedOptions): FinishedPageRequest {
  const limit = assertLimit(options.limit, 100, 1000);
  const statuses = options.statuses ?? FINISHED_STATUSES;
  for (const status of statuses) {
    if (!(FINISHED_STATUSES as readonly string[]).includes(status))
      throw new InvalidInputError(`listFinished lists finished statuses only, not ${status}`);
  }
  const ms = options.updatedBeforeMs;
  if (!Number.isFinite(ms) || Number.isNaN(new Date(ms).getTime()))
    throw new InvalidInputError(`updatedBeforeMs must be a time in ms since the epoch, got ${ms}`);
  const request: FinishedPageRequest = { limit, statuses, updatedBefore: new Date(ms).toISOString() };
  if (options.principal !== undefined) request.principal = options.principal;
  if (options.cursor !== undefined) request.cursor = decodeFinishedCursor(options.cursor);
  return request;
}

function decodeFinishedCursor(cursor: string): FinishedPosition {
  try {
    const [tag, updatedAt, taskId] = JSON.parse(fromBase64Url(cursor)) as unknown[];
    if (tag === "finished" && typeof updatedAt === "string" && typeof taskId === "string") return { updatedAt, taskId };
  } catch {
    // fall through to the typed error
  }
  throw new InvalidInputError("malformed cursor", { cursor });
}

/** Whether `record` is on a `listFinished` page of `request` (the memory store's filter; SQL stores say the same in SQL). */
export function isListedFinished(record: TaskRecord, request: FinishedPageRequest): boolean {
  if (record.parentTaskId !== undefined) return false;
  if (!(request.statuses as readonly string[]).includes(record.summary.status)) return false;
  if (request.principal !== undefined && record.principal !== request.principal) return false;
  if (record.updatedAt >= request.updatedBefore) return false;
  const { cursor } = request;
  return cursor === undefined || comesAfter(record, cursor);
}

/** Whether `a` comes after `position` in oldest-change-first order. */
export function comesAfter(a: FinishedPosition, position: FinishedPosition): boolean {
  return a.updatedAt > position.updatedAt || (a.updatedAt === position.updatedAt && a.taskId > position.taskId);
}

/** The page out of `rows` in listing order, fetched `limit + 1` so the store knows whether more follow. */
export function finishedPageOf<Row>(rows: readonly Row[], limit: number, recordOf: (row: Row) => TaskRecord): TaskPage {
  const tasks = rows.slice(0, limit).map(recordOf);
  const last = tasks.at(-1);
  if (rows.length <= limit || last === undefined) return { tasks };
  return { tasks, nextCursor: toBase64Url(JSON.stringify(["finished", last.updatedAt, last.taskId])) };
}
