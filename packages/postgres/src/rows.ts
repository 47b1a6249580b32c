/**
 * Rows as PostgreSQL returns them through `pg`, and the port's objects built from them. The JSON
 * columns are text the store wrote; one that no longer parses means the data was damaged outside
 * the store, which is reported as storage failure, not a crash.
 */
import {
  type Lease,
  type LeaseHolder,
  type Snapshot,
  type StoredEvent,
  StoreUnavailableError,
  stampEvent,
  type TaskEvent,
  type TaskRecord,
  type TaskSummary,
} from "@sema-agent/core";

export type TaskRow = {
  /** A bigint, which `pg` returns as a string; it is only ever passed back as a parameter. */
  task_no: string;
  task_id: string;
  principal: string;
  parent_task_id: string | null;
  created_at: string;
  updated_at: string;
  last_seq: number;
  summary: string;
  lease_token: string | null;
  lease_holder: string | null;
  lease_expires_at: Date | null;
};

/** The columns of `TaskRow`, for every SELECT that builds a record. */
export const TASK_COLUMNS =
  "task_no, task_id, principal, parent_task_id, created_at, updated_at, last_seq, summary, lease_token, lease_holder, lease_expires_at";

export type SnapshotRow = { task_id: string; seq: number | null; v: number | null; state: string | null };

export type EventRow = { seq: number; at: string; body: string };

export function parseColumn<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StoreUnavailableError(`corrupt ${what} in the PostgreSQL store: ${String(error)}`, error);
  }
}

export function leaseOf(row: TaskRow): Lease | undefined {
  if (row.lease_token === null || row.lease_holder === null || row.lease_expires_at === null) return undefined;
  return {
    taskId: row.task_id,
    token: row.lease_token,
    holder: parseColumn<LeaseHolder>(row.lease_holder, "lease holder"),
    expiresAt: row.lease_expires_at.toISOString(),
  };
}

export function recordOf(row: TaskRow): TaskRecord {
  const record: TaskRecord = {
    taskId: row.task_id,
    principal: row.principal,
    lastSeq: row.last_seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    summary: parseColumn<TaskSummary>(row.summary, "task summary"),
  };
  if (row.parent_task_id !== null) record.parentTaskId = row.parent_task_id;
  const lease = leaseOf(row);
  if (lease !== undefined) record.lease = lease;
  return record;
}

export function snapshotOf(row: SnapshotRow): Snapshot | undefined {
  if (row.seq === null || row.v === null || row.state === null) return undefined;
  return { taskId: row.task_id, seq: row.seq, v: row.v, state: parseColumn(row.state, "snapshot state") };
}

/** The stored event: `stampEvent` puts the identity first, then the event's own keys as appended. */
export function eventOf(taskId: string, row: EventRow): StoredEvent {
  return stampEvent(parseColumn<TaskEvent>(row.body, "event"), taskId, row.seq, row.at);
}
