/**
 * Rows as SQLite returns them and the port's objects built from them. The tables are STRICT, so
 * the column types below are guaranteed by the database; what it cannot guarantee is that a JSON
 * column still parses, so a row that does not is reported as storage failure, not a crash.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { StoredEvent, TaskRecord } from "@sema-agent/core";
import { StoreUnavailableError } from "@sema-agent/core/protocol";
import {
  eventFromColumns,
  recordFromColumns,
  type Snapshot,
  snapshotFromColumns,
  type TaskColumns,
} from "@sema-agent/core/store-kit";

export type TaskRow = TaskColumns & {
  task_no: number;
  /** Epoch milliseconds. */
  lease_expires_at: number | null;
};

/** What an append reads of its task: where the log ends, the summary, the lease. */
export type AppendHead = Pick<TaskRow, "task_no" | "last_seq" | "summary" | "lease_token" | "lease_expires_at">;

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

/** A snapshot row as stored: the state's JSON text deflated (schema 3). */
export type StoredSnapshotRow = Omit<SnapshotRow, "state"> & { state: Uint8Array | null };

/** Fast deflate: a transcript compresses about 12× at level 1 or 6 alike, level 1 is ~3× quicker. */
const SNAPSHOT_DEFLATE_LEVEL = 1;

export function deflateSnapshot(json: string): Uint8Array {
  return deflateRawSync(json, { level: SNAPSHOT_DEFLATE_LEVEL });
}

/** The stored state's JSON text; damaged bytes are storage failure, not a crash. */
export function inflateSnapshot(state: Uint8Array, taskId: string): string {
  try {
    return inflateRawSync(state).toString("utf8");
  } catch (error) {
    throw new StoreUnavailableError(
      `corrupt snapshot of task ${taskId} in the ${STORE} store: ${String(error)}`,
      error,
    );
  }
}

export function snapshotOf(row: SnapshotRow): Snapshot | undefined {
  return snapshotFromColumns(row, STORE);
}

/** The stored event, exactly as `MemoryStore` holds it (identity first, then the event's keys). */
export function eventOf(taskId: string, seq: number, at: string, body: string): StoredEvent {
  return eventFromColumns(taskId, seq, at, body, STORE);
}
