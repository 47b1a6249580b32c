/**
 * The port's objects from the rows of a SQL store. SQLite and PostgreSQL keep tasks, snapshots and
 * records in the same columns (JSON as text, so the log returns exactly what was appended); only how a
 * database hands back the lease's expiry differs, so each adapter passes it as an ISO string.
 */

import type { Lease, Snapshot, TaskRecord } from "../ports/store.ts";
import { StoreUnavailableError } from "../protocol/errors.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { RecordListing, StoredRecord } from "../protocol/records.ts";
import type { LeaseHolder, StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";
import { stampEvent } from "./store-rules.ts";

/**
 * The task columns every SQL store has (the row key and the lease expiry aside, whose types
 * differ). A type, not an interface, so a driver's untyped row converts to it.
 */
export type TaskColumns = {
  task_id: string;
  principal: string;
  parent_task_id: string | null;
  created_at: string;
  updated_at: string;
  last_seq: number;
  summary: string;
  lease_token: string | null;
  lease_holder: string | null;
};

/** The snapshot columns of a SQL store's task row (all null when the task has no snapshot). */
export interface SnapshotColumns {
  task_id: string;
  seq: number | null;
  v: number | null;
  state: string | null;
}

/**
 * Parse a JSON column. One that does not parse was damaged outside the store: reported as the
 * store being unusable (`StoreUnavailable`), never a crash.
 */
export function parseColumn<T>(text: string, what: string, store: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StoreUnavailableError(`corrupt ${what} in the ${store} store: ${String(error)}`, error);
  }
}

/** The lease, when all its columns are set; `expiresAt` as the adapter read it. */
export function leaseFromColumns(row: TaskColumns, expiresAt: string | undefined, store: string): Lease | undefined {
  if (row.lease_token === null || row.lease_holder === null || expiresAt === undefined) return undefined;
  return {
    taskId: row.task_id,
    token: row.lease_token,
    holder: parseColumn<LeaseHolder>(row.lease_holder, "lease holder", store),
    expiresAt,
  };
}

/**
 * The {@link TaskRecord} of a task row; `expiresAt` is the lease's expiry as the adapter read it.
 * A damaged JSON column throws `StoreUnavailable`.
 */
export function recordFromColumns(row: TaskColumns, expiresAt: string | undefined, store: string): TaskRecord {
  const record: TaskRecord = {
    taskId: row.task_id,
    principal: row.principal,
    lastSeq: row.last_seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    summary: parseColumn<TaskSummary>(row.summary, "task summary", store),
  };
  if (row.parent_task_id !== null) record.parentTaskId = row.parent_task_id;
  const lease = leaseFromColumns(row, expiresAt, store);
  if (lease !== undefined) record.lease = lease;
  return record;
}

/** The {@link Snapshot} of a task row, or `undefined` when the row has none. */
export function snapshotFromColumns(row: SnapshotColumns, store: string): Snapshot | undefined {
  if (row.seq === null || row.v === null || row.state === null) return undefined;
  return {
    taskId: row.task_id,
    seq: row.seq,
    v: row.v,
    state: parseColumn<JsonValue>(row.state, "snapshot state", store),
  };
}

/** The stored event: identity first, then the event's own keys in the order they were appended. */
export function eventFromColumns(taskId: string, seq: number, at: string, body: string, store: string): StoredEvent {
  return stampEvent(parseColumn<TaskEvent>(body, "event", store), taskId, seq, at);
}

/**
 * The columns of one version of a record (`Store.putRecord`) that a list reads: its meta is JSON
 * text; its body, read only by `getRecord`, too.
 */
export type RecordColumns = {
  name: string;
  version: number;
  created_at: string;
  meta: string;
};

/** A record as a list shows it (no body), of the kind and principal the query asked for. */
export function recordListingFromColumns(
  key: { kind: string; principal: string },
  row: RecordColumns,
  store: string,
): RecordListing {
  return {
    kind: key.kind,
    principal: key.principal,
    name: row.name,
    version: row.version,
    createdAt: row.created_at,
    meta: parseColumn<{ [key: string]: JsonValue }>(row.meta, "record meta", store),
  };
}

/** One version of a record, its body parsed from the JSON text the store kept. */
export function storedRecordFromColumns(
  key: { kind: string; principal: string },
  row: RecordColumns & { body: string },
  store: string,
): StoredRecord {
  return {
    ...recordListingFromColumns(key, row, store),
    body: parseColumn<JsonValue>(row.body, "record body", store),
  };
}
