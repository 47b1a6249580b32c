/**
 * The optional operations side of the `Store` port: finding finished tasks across principals,
 * deleting a task whole, reclaiming the space it took, and measuring the store. Retention
 * (`sema prune`), archiving and `sema stats` are written against these only.
 */

import type { TaskStatus } from "../protocol/task-summary.ts";

/** The statuses a task can be deleted in: it ended. */
export type FinishedStatus = Extract<TaskStatus, "completed" | "failed" | "cancelled">;

/**
 * Which finished root tasks `listFinished` returns: last changed before a time, of some statuses,
 * optionally one principal's, oldest change first, a page at a time.
 */
export interface ListFinishedOptions {
  /** Only tasks whose `updatedAt` is before this time (ms since the epoch). */
  updatedBeforeMs: number;
  /** Only these statuses (default: all three finished ones). */
  statuses?: readonly FinishedStatus[];
  /** Only this principal's tasks (default: every principal's). */
  principal?: string;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** Tasks per page: default 100, at most 1000. */
  limit?: number;
}

/** What `deleteTask` removed: the task and its descendants, their events, and blobs nobody else referenced. */
export interface DeletedTask {
  /** The task deleted, then its descendants (parents before children). */
  taskIds: string[];
  /** Events removed, summed over `taskIds`. */
  events: number;
  /** Bytes of the events' JSON removed (as `StoreStats.logBytes` counts them). */
  logBytes: number;
  /** Digests of the blobs removed: referenced by these tasks and by no other task. */
  blobs: string[];
}

/** What `stats` measures: one principal's tasks or the whole store's, and how many largest tasks to list. */
export interface StoreStatsOptions {
  /** Only this principal's tasks (blobs are shared between principals and stay store-wide). */
  principal?: string;
  /** List this many of the largest tasks by log bytes (default 10, at most 1000; 0 for none). */
  largest?: number;
  /**
   * Count events and log bytes (default true). They read every event row; `false` counts tasks
   * and sizes only (what a metrics scrape can afford on a large store).
   */
  events?: boolean;
}

/** One task's size, for `StoreStats.largest`. */
export interface TaskSize {
  taskId: string;
  principal: string;
  status: TaskStatus;
  events: number;
  logBytes: number;
}

/** One principal's share of the store, for `StoreStats.principals`. */
export interface PrincipalSize {
  principal: string;
  tasks: number;
  events: number;
  logBytes: number;
}

/** The size of a store (or of one principal's part of it). */
export interface StoreStats {
  /** Tasks by status; every status is present, 0 when none. */
  tasks: Record<TaskStatus, number>;
  /** Events stored (absent with `events: false`). */
  events?: number;
  /** Bytes of the events' JSON text as stored (absent with `events: false`). */
  logBytes?: number;
  /** The largest tasks by log bytes, largest first (absent with `events: false`). */
  largest?: TaskSize[];
  /** Each principal's share, most log bytes first (absent with `events: false`). */
  principals?: PrincipalSize[];
  /** Blobs stored, store-wide. */
  blobs: number;
  /** Bytes of the blobs stored, store-wide. */
  blobBytes: number;
  /**
   * The store's own size as its database reports it (SQLite: the file's pages; PostgreSQL: the
   * store's tables and indexes), store-wide; absent for a store with no such figure (memory).
   */
  storeBytes?: number;
}

/** What `reclaimSpace` did: the store's size before and after, as `StoreStats.storeBytes` counts it. */
export interface ReclaimedSpace {
  bytesBefore: number;
  bytesAfter: number;
}

/**
 * The largest single event and blob a store takes (`ContentTooLarge` above, nothing written), so
 * one runaway tool result or upload cannot fill it. Given to the store's constructor.
 */
export interface StoreSizeLimits {
  /** Bytes of one event's JSON (UTF-8). Default 16 MiB. */
  maxEventBytes?: number;
  /** Bytes of one blob. Default 64 MiB. */
  maxBlobBytes?: number;
}
