/**
 * Coalesced reads on PostgreSQL: the `read`, `getTask` and `latestSnapshot` calls of many legs
 * within one tick (or while earlier batches are in flight) go as one statement each, so ten
 * thousand legs' refreshes and watchers' tails queue for the pool as a few dozen statements
 * instead of thousands. Each caller gets exactly what its own statement would have given: its
 * events in seq order after its `afterSeq`, at most its `limit`, or `TaskNotFound`.
 */
import type { StoredEvent } from "@sema-agent/core";
import { TaskNotFoundError } from "@sema-agent/core/protocol";
import type { GroupCommitSettings, Snapshot, WriteLane } from "@sema-agent/core/store-kit";
import type pg from "pg";
import { Coalescer } from "./coalescer.ts";
import type { Queries } from "./queries.ts";
import { eventOf, type SnapshotRow, snapshotOf, type TaskRow } from "./rows.ts";

/** One caller's `read`, waiting for its batch (`limit` null: no limit). */
export interface BatchedRead {
  taskId: string;
  afterSeq: number;
  limit: number | null;
  resolve(events: StoredEvent[]): void;
  reject(error: unknown): void;
}

/** One caller's lookup of a task's row or latest snapshot, waiting for its batch. */
export interface BatchedLookup<T> {
  taskId: string;
  resolve(found: T): void;
  reject(error: unknown): void;
}

/** What the read batches need from their store: a query (its errors already the port's) and the statements. */
export interface ReadBatchHost {
  /** `lane` `attended`: the batch holds attended reads alone, and runs on the priority lane's pool. */
  query<R extends pg.QueryResultRow>(text: string, params: unknown[], lane?: WriteLane): Promise<R[]>;
  sql: Queries;
}

type ReadRow = { i: number; found: boolean; seq: number | null; at: string | null; body: string | null };

/**
 * Split the rows of one `readEventsBatch` among its reads (row `i` belongs to `batch[i - 1]`) and
 * settle each: its events, `TaskNotFound`, or the error of a damaged row of its own.
 */
function splitReads(batch: readonly BatchedRead[], rows: readonly ReadRow[]): void {
  const events: StoredEvent[][] = batch.map(() => []);
  const failed = new Map<number, unknown>();
  for (const row of rows) {
    const index = row.i - 1;
    const read = batch[index];
    if (read === undefined || failed.has(index)) continue;
    if (!row.found) failed.set(index, new TaskNotFoundError(read.taskId));
    else if (row.seq !== null && row.at !== null && row.body !== null) {
      try {
        events[index]?.push(eventOf(read.taskId, { seq: row.seq, at: row.at, body: row.body }));
      } catch (error) {
        failed.set(index, error);
      }
    }
  }
  batch.forEach((read, index) => {
    if (failed.has(index)) read.reject(failed.get(index));
    else read.resolve(events[index] ?? []);
  });
}

/** Event reads in batches: one `readEventsBatch` statement per batch. */
export function readCoalescer(host: ReadBatchHost, settings: GroupCommitSettings): Coalescer<BatchedRead> {
  return new Coalescer(settings, undefined, async (batch, lane) => {
    let rows: ReadRow[];
    try {
      rows = await host.query<ReadRow>(
        host.sql.readEventsBatch,
        [batch.map((read) => read.taskId), batch.map((read) => read.afterSeq), batch.map((read) => read.limit)],
        lane,
      );
    } catch (error) {
      for (const read of batch) read.reject(error);
      return;
    }
    splitReads(batch, rows);
  });
}

/** Lookups by task id in batches: `statement` takes the ids as $1 and returns rows with `task_id`. */
function lookupCoalescer<Row extends { task_id: string }, T>(
  host: ReadBatchHost,
  settings: GroupCommitSettings,
  statement: string,
  build: (row: Row) => T,
): Coalescer<BatchedLookup<T>> {
  return new Coalescer(settings, undefined, async (batch) => {
    let byId: Map<string, Row>;
    try {
      const ids = [...new Set(batch.map((lookup) => lookup.taskId))];
      byId = new Map((await host.query<Row>(statement, [ids])).map((row) => [row.task_id, row]));
    } catch (error) {
      for (const lookup of batch) lookup.reject(error);
      return;
    }
    for (const lookup of batch) {
      const row = byId.get(lookup.taskId);
      if (row === undefined) {
        lookup.reject(new TaskNotFoundError(lookup.taskId));
        continue;
      }
      try {
        lookup.resolve(build(row));
      } catch (error) {
        lookup.reject(error);
      }
    }
  });
}

/** `getTask` rows in batches (the caller builds the record, so a damaged row fails that call alone). */
export function taskCoalescer(host: ReadBatchHost, settings: GroupCommitSettings): Coalescer<BatchedLookup<TaskRow>> {
  return lookupCoalescer<TaskRow, TaskRow>(host, settings, host.sql.tasksBatch, (row) => row);
}

/** `latestSnapshot` in batches: the task's latest snapshot, undefined when it has none. */
export function snapshotCoalescer(
  host: ReadBatchHost,
  settings: GroupCommitSettings,
): Coalescer<BatchedLookup<Snapshot | undefined>> {
  return lookupCoalescer<SnapshotRow, Snapshot | undefined>(host, settings, host.sql.snapshotsBatch, snapshotOf);
}
