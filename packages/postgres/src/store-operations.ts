/**
 * The operations side of `PostgresStore` as queries: finished tasks for retention, deleting a task
 * whole in one transaction, and the store's size (`stats`). Space: plain deletes, left to
 * autovacuum (see the "Operating a store" guide for why).
 */
import type { TaskStatus } from "@sema-agent/core";
import { TaskExistsError, TaskNotFoundError } from "@sema-agent/core/protocol";
import {
  assertDeletable,
  BLOB_GRACE_MS,
  type DeletedTask,
  emptyTaskCounts,
  type FinishedPageRequest,
  finishedPageOf,
  forkSourceOf,
  largestTasks,
  objectiveSearchKey,
  principalSizes,
  type RestoredLog,
  type StatsRequest,
  type StoreStats,
  type TaskPage,
  type TaskRecord,
  type TaskSize,
  wantsWorker,
} from "@sema-agent/core/store-kit";
import { recordOf, TASK_COLUMNS, type TaskRow } from "./rows.ts";
import type { Tx } from "./session.ts";
import { inputIdsOf } from "./write-events.ts";

/** Run one statement and get its rows. */
export type Query = <R extends Record<string, unknown>>(text: string, params: unknown[]) => Promise<R[]>;

/** The statements of the operations, for the quoted schema `s`. */
export function operationQueries(s: string) {
  return {
    /**
     * The task and its descendants, locked in task-id order (the order appends lock rows in, so
     * the two never deadlock), with the database clock the liveness rule reads leases by.
     */
    lockFamily: `WITH RECURSIVE family (task_id, depth) AS (
        SELECT task_id, 0 FROM ${s}.tasks WHERE task_id = $1
        UNION ALL
        SELECT t.task_id, family.depth + 1 FROM ${s}.tasks t JOIN family ON t.parent_task_id = family.task_id
      ), locked AS (
        SELECT t.task_no FROM ${s}.tasks t JOIN family USING (task_id) ORDER BY t.task_id FOR UPDATE OF t
      )
      SELECT ${TASK_COLUMNS.split(", ")
        .map((column) => `t.${column}`)
        .join(", ")}, family.depth, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now_ms
      FROM ${s}.tasks t JOIN family USING (task_id) WHERE t.task_no IN (SELECT task_no FROM locked)
      ORDER BY family.depth, t.task_no`,
    task: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE task_id = $1`,
    /**
     * `countChildren`: the children of each parent in $2 among principal $1's tasks, one
     * index-only search of `tasks_by_parent` (principal, parent) per parent, a row for each. A
     * GROUP BY over `parent_task_id = ANY($2)` lets the planner scan the principal's tasks
     * instead (measured: a seq scan of 4,000 rows, or the index with the array as a filter).
     */
    countChildren: `SELECT ids.id, (SELECT count(*) FROM ${s}.tasks t
        WHERE t.principal = $1 AND t.parent_task_id = ids.id)::float8 AS n
      FROM unnest($2::text[]) AS ids (id)`,
    /** Events and bytes of tasks $1. */
    sizes: `SELECT count(*)::float8 AS events, coalesce(sum(octet_length(body)), 0)::float8 AS bytes
      FROM ${s}.events WHERE task_no = ANY($1::bigint[])`,
    /** The digests tasks $1's events name (schema 11's blob_refs). */
    references: `SELECT DISTINCT digest FROM ${s}.blob_refs WHERE task_no = ANY($1::bigint[])`,
    deleteRows: `WITH i AS (DELETE FROM ${s}.inputs WHERE task_no = ANY($1::bigint[])),
        sn AS (DELETE FROM ${s}.snapshots WHERE task_no = ANY($1::bigint[])),
        r AS (DELETE FROM ${s}.blob_refs WHERE task_no = ANY($1::bigint[])),
        e AS (DELETE FROM ${s}.events WHERE task_no = ANY($1::bigint[]))
      SELECT 1`,
    deleteTasks: `DELETE FROM ${s}.tasks WHERE task_no = ANY($1::bigint[])`,
    /**
     * Lock the rows of blobs $1, in digest order, until the transaction ends: two deletions of the
     * last tasks naming a blob would otherwise each see the other's reference (uncommitted, so
     * still there for it) and both keep the blob. The second waits here for the first to commit,
     * and its next statement sees the first's references gone. Ordered, so two never deadlock.
     */
    lockBlobs: `SELECT digest FROM ${s}.blobs WHERE digest = ANY($1::text[]) ORDER BY digest FOR UPDATE`,
    /**
     * Delete blob $1 unless a remaining event references it (one search of blob_refs) or it was
     * put after $2 (ms since the epoch: the grace period's start).
     */
    deleteBlobIfUnused: `WITH unused AS (
        SELECT $1::text AS digest WHERE NOT EXISTS (SELECT 1 FROM ${s}.blob_refs WHERE digest = $1)
          AND NOT EXISTS (SELECT 1 FROM ${s}.blob_puts WHERE digest = $1 AND put_at > $2::float8)
      ), puts AS (DELETE FROM ${s}.blob_puts WHERE digest IN (SELECT digest FROM unused))
      DELETE FROM ${s}.blobs WHERE digest IN (SELECT digest FROM unused) RETURNING digest`,
    statusCounts: `SELECT status, count(*)::float8 AS n FROM ${s}.tasks
      WHERE $1::text IS NULL OR principal = $1 GROUP BY status`,
    taskSizes: `SELECT t.task_id AS "taskId", t.principal, t.status, count(e.seq)::float8 AS events,
        coalesce(sum(octet_length(e.body)), 0)::float8 AS "logBytes"
      FROM ${s}.tasks t LEFT JOIN ${s}.events e ON e.task_no = t.task_no
      WHERE $1::text IS NULL OR t.principal = $1 GROUP BY t.task_no`,
    blobTotals: `SELECT count(*)::float8 AS n, coalesce(sum(octet_length(bytes)), 0)::float8 AS bytes FROM ${s}.blobs`,
    /** Tables, their indexes and TOAST, of schema $1 (unquoted). */
    storeBytes: `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    /** A copied log's task row, as it was stored; no row back: the id is taken. */
    restoreTask: `INSERT INTO ${s}.tasks (task_id, principal, parent_task_id, created_at, updated_at, last_seq,
        status, wants_worker, summary, forked_from, agent, objective_key)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (task_id) DO NOTHING RETURNING task_no`,
    /** Its events with their own times ($2 seqs, $3 ats, $4 bodies) and the first stage of each input ($5). */
    restoreEvents: `WITH ins AS (
        INSERT INTO ${s}.events (task_no, seq, at, body)
        SELECT $1, u.seq, u.at, u.body FROM unnest($2::integer[], $3::text[], $4::text[]) AS u (seq, at, body)
      )
      INSERT INTO ${s}.inputs (task_no, input_id, seq)
      SELECT $1, u.input_id, min(u.seq) FROM unnest($2::integer[], $5::text[]) AS u (seq, input_id)
      WHERE u.input_id IS NOT NULL GROUP BY u.input_id`,
    finished: (request: FinishedPageRequest) => {
      const clauses = [
        "parent_task_id IS NULL",
        "status IN ('completed', 'failed', 'cancelled')",
        "status = ANY($1::text[])",
        "updated_at < $2",
      ];
      if (request.principal !== undefined) clauses.push("principal = $4");
      if (request.cursor !== undefined) {
        const [at, id] = request.principal === undefined ? ["$4", "$5"] : ["$5", "$6"];
        clauses.push(`(updated_at > ${at} OR (updated_at = ${at} AND task_id > ${id}))`);
      }
      return `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE ${clauses.join(" AND ")}
        ORDER BY updated_at, task_id LIMIT $3`;
    },
  };
}

/** The operations' statements. */
export type OperationQueries = ReturnType<typeof operationQueries>;

/** Delete `taskId` and its descendants in the transaction `tx`, or throw `TaskLive` / `TaskNotFound` having changed nothing. */
export async function deleteTaskRows(tx: Tx, q: OperationQueries, taskId: string): Promise<DeletedTask> {
  const family = (await tx.client.query<TaskRow & { depth: number; now_ms: number }>(q.lockFamily, [taskId])).rows;
  const [head, ...descendants] = family;
  if (head === undefined || head.depth !== 0) throw new TaskNotFoundError(taskId);
  const ancestors: TaskRecord[] = [];
  for (let parent = head.parent_task_id; parent !== null; ) {
    const found = (await tx.client.query<TaskRow>(q.task, [parent])).rows[0];
    if (found === undefined) break;
    ancestors.push(recordOf(found));
    parent = found.parent_task_id;
  }
  assertDeletable(
    { task: recordOf(head), ancestors, descendants: descendants.map((row) => recordOf(row)) },
    head.now_ms,
  );
  const taskNos = family.map((row) => row.task_no);
  const size = (await tx.client.query<{ events: number; bytes: number }>(q.sizes, [taskNos])).rows[0];
  const references = (await tx.client.query<{ digest: string }>(q.references, [taskNos])).rows;
  await tx.client.query(q.deleteRows, [taskNos]);
  await tx.client.query(q.deleteTasks, [taskNos]);
  const blobs: string[] = [];
  const graceFrom = head.now_ms - BLOB_GRACE_MS;
  const digests = references.map((row) => row.digest).sort();
  if (digests.length > 0) await tx.client.query(q.lockBlobs, [digests]);
  for (const digest of digests) {
    if ((await tx.client.query(q.deleteBlobIfUnused, [digest, graceFrom])).rows.length > 0) blobs.push(digest);
  }
  return {
    taskIds: family.map((row) => row.task_id),
    events: size?.events ?? 0,
    logBytes: size?.bytes ?? 0,
    blobs,
  };
}

/** Write a checked copied log in the transaction `tx`, as it was stored (see `Store.restoreTask`). */
export async function restoreTaskRows(tx: Tx, q: OperationQueries, log: RestoredLog): Promise<void> {
  const { summary } = log;
  const [row] = (
    await tx.client.query<{ task_no: string }>(q.restoreTask, [
      log.taskId,
      log.created.principal,
      log.created.parentTaskId ?? null,
      log.createdAt,
      log.updatedAt,
      log.bodies.length,
      summary.status,
      wantsWorker(summary),
      JSON.stringify(summary),
      forkSourceOf(summary),
      log.created.agent ?? null,
      objectiveSearchKey(log.created.objective),
    ])
  ).rows;
  if (row === undefined) throw new TaskExistsError(log.taskId);
  await tx.client.query(q.restoreEvents, [
    row.task_no,
    log.bodies.map((_, i) => i + 1),
    log.ats,
    log.bodies.map((body) => JSON.stringify(body)),
    inputIdsOf(log.bodies),
  ]);
}

/** One `listFinished` page (by the `tasks_finished` partial index, schema 8). */
export async function listFinishedRows(
  query: Query,
  q: OperationQueries,
  request: FinishedPageRequest,
): Promise<TaskPage> {
  const params: unknown[] = [request.statuses, request.updatedBefore, request.limit + 1];
  if (request.principal !== undefined) params.push(request.principal);
  if (request.cursor !== undefined) params.push(request.cursor.updatedAt, request.cursor.taskId);
  return finishedPageOf(await query<TaskRow>(q.finished(request), params), request.limit, recordOf);
}

/** The store's size, or one principal's part of it (blobs and the tables' size stay store-wide). */
export async function storeStats(
  query: Query,
  q: OperationQueries,
  schema: string,
  request: StatsRequest,
): Promise<StoreStats> {
  const principal = request.principal ?? null;
  const tasks = emptyTaskCounts();
  for (const { status, n } of await query<{ status: TaskStatus; n: number }>(q.statusCounts, [principal])) {
    tasks[status] = n;
  }
  const [blobs] = await query<{ n: number; bytes: number }>(q.blobTotals, []);
  const [store] = await query<{ bytes: number }>(q.storeBytes, [schema]);
  const stats: StoreStats = {
    tasks,
    blobs: blobs?.n ?? 0,
    blobBytes: blobs?.bytes ?? 0,
    storeBytes: store?.bytes ?? 0,
  };
  if (!request.events) return stats;
  const sizes = await query<TaskSize & Record<string, unknown>>(q.taskSizes, [principal]);
  stats.events = sizes.reduce((sum, size) => sum + size.events, 0);
  stats.logBytes = sizes.reduce((sum, size) => sum + size.logBytes, 0);
  stats.largest = largestTasks(sizes, request.largest).map(({ taskId, principal, status, events, logBytes }) => ({
    taskId,
    principal,
    status,
    events,
    logBytes,
  }));
  stats.principals = principalSizes(sizes);
  return stats;
}
