/**
 * Rows as PostgreSQL returns them through `pg`, and the port's objects built from them. The JSON
 * columns are text the store wrote; one that no longer parses means the data was damaged outside
 * the store, which is reported as storage failure, not a crash.
 */

import type { StoredEvent, TaskRecord } from "@sema-agent/core";
import {
  eventFromColumns,
  recordFromColumns,
  type Snapshot,
  snapshotFromColumns,
  type TaskColumns,
} from "@sema-agent/core/store-kit";

export type TaskRow = TaskColumns & {
  /** A bigint, which `pg` returns as a string; it is only ever passed back as a parameter. */
  task_no: string;
  lease_expires_at: Date | null;
};

/** The columns of `TaskRow`, for every SELECT that builds a record. */
export const TASK_COLUMNS =
  "task_no, task_id, principal, parent_task_id, created_at, updated_at, last_seq, summary, lease_token, lease_holder, lease_expires_at";

export type SnapshotRow = { task_id: string; seq: number | null; v: number | null; state: string | null };

export type EventRow = { seq: number; at: string; body: string };

const STORE = "PostgreSQL";

export function recordOf(row: TaskRow): TaskRecord {
  return recordFromColumns(row, row.lease_expires_at === null ? undefined : row.lease_expires_at.toISOString(), STORE);
}

export function snapshotOf(row: SnapshotRow): Snapshot | undefined {
  return snapshotFromColumns(row, STORE);
}

/** The stored event, exactly as `MemoryStore` holds it (identity first, then the event's keys). */
export function eventOf(taskId: string, row: EventRow): StoredEvent {
  return eventFromColumns(taskId, row.seq, row.at, row.body, STORE);
}
