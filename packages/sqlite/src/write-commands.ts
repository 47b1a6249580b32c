/**
 * Every write of `SqliteStore` as a plain, serializable command and the one function that runs it
 * inside a write transaction. The store's writer runs it on the main thread (`writer: "main"`) or
 * on its writer thread (`writer: "thread"`), where closures cannot go: a command is data, so it
 * crosses with `postMessage`, and each write's logic lives here once for both.
 */
import type { TaskEvent } from "@sema-agent/core";
import { type LeaseHolder, type PutRecordInput, TaskExistsError, TaskNotFoundError } from "@sema-agent/core/protocol";
import {
  assertLeaseAvailable,
  assertLeaseHeld,
  assertSnapshotSeq,
  assertTtl,
  checkExpectedVersion,
  type DeletedTask,
  EMPTY_SUMMARY,
  forkSourceOf,
  isoTime,
  type Lease,
  laneOfSummary,
  newLease,
  objectiveSearchKey,
  type RestoredLog,
  type SummaryCache,
  summarizeAfter,
  wantsWorker,
} from "@sema-agent/core/store-kit";
import { deflateSnapshot, recordOf, type TaskRow } from "./rows.ts";
import type { Statements } from "./statements.ts";
import { deleteTaskRows } from "./task-deletion.ts";
import type { UsageCounters } from "./usage-counters.ts";
import { appendEvents, type Written, writeEvents } from "./write-events.ts";

/** A new task with its first events (`events[0]` is its `task_created`), validated by the caller. */
export interface CreateCommand {
  kind: "create";
  taskId: string;
  events: TaskEvent[];
  maxActiveTasks?: number;
}

/** Events appended after `expectedSeq`, under a lease when `leaseToken` is given; validated by the caller. */
export interface AppendCommand {
  kind: "append";
  taskId: string;
  events: TaskEvent[];
  expectedSeq: number;
  leaseToken?: string;
}

export interface AcquireLeaseCommand {
  kind: "acquireLease";
  taskId: string;
  holder: LeaseHolder;
  ttlMs: number;
  replaceHolderId?: string;
}

export interface RenewLeaseCommand {
  kind: "renewLease";
  taskId: string;
  token: string;
  ttlMs: number;
}

export interface ReleaseLeaseCommand {
  kind: "releaseLease";
  taskId: string;
  token: string;
}

/** A snapshot, its state already as JSON text (a string crosses threads cheaply; deflating is the writer's). */
export interface PutSnapshotCommand {
  kind: "putSnapshot";
  taskId: string;
  seq: number;
  v: number;
  stateText: string;
}

export interface PutBlobCommand {
  kind: "putBlob";
  digest: string;
  bytes: Uint8Array;
}

/**
 * A version of a record, checked by the caller (`checkPutRecord`): which name, the version the put
 * expects if any, and its meta and body as JSON text (a string crosses threads cheaply).
 */
export interface PutRecordCommand {
  kind: "putRecord";
  record: Pick<PutRecordInput, "kind" | "principal" | "name" | "expectedVersion">;
  metaJson: string;
  bodyJson: string;
}

/** A task and its descendants deleted whole (see `deleteTaskRows`). */
export interface DeleteTaskCommand {
  kind: "deleteTask";
  taskId: string;
}

/** A log copied from another store, checked by the caller (`restoredLog`): written as it was stored. */
export interface RestoreCommand {
  kind: "restore";
  log: RestoredLog;
}

/** The task a write is to, if it is one task's (a person's write lifts the task's routine ones). */
export function taskOfCommand(command: WriteCommand): string | undefined {
  return "taskId" in command ? command.taskId : undefined;
}

/** One write of the store, as data. */
export type WriteCommand =
  | CreateCommand
  | AppendCommand
  | AcquireLeaseCommand
  | RenewLeaseCommand
  | ReleaseLeaseCommand
  | PutSnapshotCommand
  | PutBlobCommand
  | PutRecordCommand
  | DeleteTaskCommand
  | RestoreCommand;

/** What each kind of write answers; small, so it crosses back from a writer thread cheaply. */
export interface WriteResults {
  /** Where the task's first events went. */
  create: Written;
  /** Where the events went; `undefined` for an append of none. */
  append: Written | undefined;
  acquireLease: Lease;
  renewLease: Lease;
  /** Whether a lease was released (false: the token no longer held it). */
  releaseLease: boolean;
  putSnapshot: undefined;
  putBlob: undefined;
  /** The version written and its stamp. */
  putRecord: { version: number; createdAt: string };
  /** What was deleted. */
  deleteTask: DeletedTask;
  restore: undefined;
}

/** The answer to `command`. */
export type WriteResult<C extends WriteCommand> = WriteResults[C["kind"]];

/** What runs the commands needs besides the statements: the usage counters and the summary cache of the same connection. */
export interface WriteContext {
  usage: UsageCounters;
  summaries: SummaryCache;
}

function rowOf(sql: Statements, taskId: string): TaskRow {
  const row = sql.task.get(taskId) as TaskRow | undefined;
  if (row === undefined) throw new TaskNotFoundError(taskId);
  return row;
}

/**
 * Run `command` inside the write transaction that is open on `sql` (its own, or its savepoint of
 * a group commit), at `nowMs` by the store's clock. Throws the typed error that refuses it.
 */
export function runWrite<C extends WriteCommand>(
  context: WriteContext,
  sql: Statements,
  command: C,
  nowMs: number,
): WriteResult<C> {
  return run(context, sql, command, nowMs) as WriteResult<C>;
}

function run(context: WriteContext, sql: Statements, command: WriteCommand, nowMs: number): unknown {
  switch (command.kind) {
    case "create":
      return create(context, sql, command, nowMs);
    case "append": {
      const written = appendEvents(sql, context.summaries, command.taskId, command.events, command, nowMs);
      // The turns' usage moves its counters in this same transaction (with group commit, inside
      // this append's savepoint: refused or rolled back, it counts nothing).
      if (written !== undefined) context.usage.countAppend(command.taskId, command.events, nowMs);
      return written;
    }
    case "acquireLease": {
      const row = rowOf(sql, command.taskId);
      const record = recordOf(row);
      assertTtl(command.ttlMs);
      assertLeaseAvailable(command.taskId, record.lease, command.holder, nowMs, command.replaceHolderId);
      const expires = new Date(nowMs + command.ttlMs);
      const lease = newLease(command.taskId, command.holder, expires.getTime());
      sql.setLease.run(lease.token, JSON.stringify(lease.holder), expires.getTime(), row.task_no);
      return lease;
    }
    case "renewLease": {
      const row = rowOf(sql, command.taskId);
      const record = recordOf(row);
      assertTtl(command.ttlMs);
      const lease = record.lease;
      assertLeaseHeld(command.taskId, lease, command.token, nowMs);
      const expires = new Date(nowMs + command.ttlMs);
      sql.setLease.run(lease.token, JSON.stringify(lease.holder), expires.getTime(), row.task_no);
      return { ...lease, expiresAt: expires.toISOString() };
    }
    case "releaseLease":
      if (Number(sql.releaseLease.run(command.taskId, command.token).changes) > 0) return true;
      if (sql.taskNo.get(command.taskId) === undefined) throw new TaskNotFoundError(command.taskId);
      return false;
    case "putSnapshot": {
      const row = rowOf(sql, command.taskId);
      assertSnapshotSeq(command.seq, row.last_seq);
      // The upsert keeps the snapshot with the highest seq, whatever order writers arrive in.
      sql.putSnapshot.run(row.task_no, command.seq, command.v, deflateSnapshot(command.stateText));
      return undefined;
    }
    case "putBlob":
      // Bytes already here: their grace period starts (see BLOB_GRACE_MS), before the put returns.
      if (Number(sql.putBlob.run(command.digest, command.bytes).changes) === 0)
        sql.putBlobAt.run(command.digest, nowMs);
      return undefined;
    case "putRecord":
      return putRecord(sql, command, nowMs);
    case "deleteTask":
      return deleteTaskRows(sql, command.taskId, nowMs);
    case "restore":
      return restore(sql, command.log);
  }
}

/**
 * The next version of a record's name: read and written under the write lock this transaction
 * holds, so no other connection or process can take the same version, and a conditional put sees
 * the latest version there is.
 */
function putRecord(sql: Statements, command: PutRecordCommand, nowMs: number): WriteResults["putRecord"] {
  const { kind, principal, name } = command.record;
  const head = sql.recordHead.get(kind, principal, name) as { version: number | null } | undefined;
  const latest = head?.version ?? 0;
  checkExpectedVersion(command.record, latest);
  const createdAt = isoTime(nowMs);
  sql.insertRecord.run(kind, principal, name, latest + 1, createdAt, command.metaJson, command.bodyJson);
  return { version: latest + 1, createdAt };
}

function create(context: WriteContext, sql: Statements, command: CreateCommand, nowMs: number): Written {
  const { taskId, events } = command;
  const created = events[0];
  if (created?.type !== "task_created") throw new TypeError("a create command starts with its task_created");
  const at = isoTime(nowMs);
  const principal = created.principal;
  context.usage.checkCreate(principal, created.parentTaskId, command.maxActiveTasks);
  const summary = summarizeAfter(events, EMPTY_SUMMARY, 0);
  // An existing task id inserts nothing (no lookup first: one statement fewer per task).
  const { changes, lastInsertRowid } = sql.insertTask.run(
    taskId,
    principal,
    created.parentTaskId ?? null,
    at,
    at,
    events.length,
    summary.status,
    wantsWorker(summary) ? 1 : 0,
    JSON.stringify(summary),
    forkSourceOf(summary),
    created.agent ?? null,
    objectiveSearchKey(created.objective),
    laneOfSummary(summary) === "person" ? 1 : 0,
  );
  if (Number(changes) === 0) throw new TaskExistsError(taskId);
  writeEvents(sql, { taskNo: Number(lastInsertRowid), taskId, lastSeq: 0, summary: EMPTY_SUMMARY }, events, at);
  context.usage.countCreate(principal, created.model, events, nowMs);
  return { firstSeq: 1, at };
}

/**
 * A copied log, as it was stored: the row with the first and last events' times, then the events
 * in runs of one `at` each (an append's events share theirs). No usage is counted: the source did.
 */
function restore(sql: Statements, log: RestoredLog): undefined {
  const { summary } = log;
  const { changes, lastInsertRowid } = sql.insertTask.run(
    log.taskId,
    log.created.principal,
    log.created.parentTaskId ?? null,
    log.createdAt,
    log.updatedAt,
    log.bodies.length,
    summary.status,
    wantsWorker(summary) ? 1 : 0,
    JSON.stringify(summary),
    forkSourceOf(summary),
    log.created.agent ?? null,
    objectiveSearchKey(log.created.objective),
    laneOfSummary(summary) === "person" ? 1 : 0,
  );
  if (Number(changes) === 0) throw new TaskExistsError(log.taskId);
  const position = { taskNo: Number(lastInsertRowid), taskId: log.taskId, lastSeq: 0, summary: EMPTY_SUMMARY };
  for (let start = 0; start < log.bodies.length; ) {
    const at = log.ats[start] ?? log.createdAt;
    let end = start + 1;
    while (end < log.bodies.length && log.ats[end] === at) end++;
    position.summary = writeEvents(sql, position, log.bodies.slice(start, end), at);
    position.lastSeq = end;
    start = end;
  }
  return undefined;
}
