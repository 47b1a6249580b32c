/**
 * Rows as SQLite returns them and the port's objects built from them. The tables are STRICT, so
 * the column types below are guaranteed by the database; what it cannot guarantee is that a JSON
 * column still parses, so a row that does not is reported as storage failure, not a crash.
 */
import {
  eventFromColumns,
  recordFromColumns,
  type Snapshot,
  type StoredEvent,
  snapshotFromColumns,
  type TaskRecord,
} from "@sema-agent/core";

export type TaskRow = {
  task_no: number;
  task_id: string;
  principal: string;
  parent_task_id: string | null;
  created_at: string;
  updated_at: string;
  last_seq: number;
  summary: string;
  lease_token: string | null;
  lease_holder: string | null;
  lease_expires_at: number | null;
};

/** The columns of `TaskRow`, for every SELECT that builds a record. */
export const TASK_COLUMNS =
  "task_no, task_id, principal, parent_task_id, created_at, updated_at, last_seq, summary, lease_token, lease_holder, lease_expires_at";

export type SnapshotRow = { task_id: string; seq: number | null; v: number | null; state: string | null };

/** An event row, as an array (cheaper to build than an object): seq, at, the event's own keys as JSON. */
export type EventRow = [seq: number, at: string, body: string];

const STORE = "SQLite";

export function recordOf(row: TaskRow): TaskRecord {
  return recordFromColumns(
    row,
    row.lease_expires_at === null ? undefined : new Date(row.lease_expires_at).toISOString(),
    STORE,
  );
}

export function snapshotOf(row: SnapshotRow): Snapshot | undefined {
  return snapshotFromColumns(row, STORE);
}

/** The stored event, exactly as `MemoryStore` holds it (identity first, then the event's keys). */
export function eventOf(taskId: string, seq: number, at: string, body: string): StoredEvent {
  return eventFromColumns(taskId, seq, at, body, STORE);
}
