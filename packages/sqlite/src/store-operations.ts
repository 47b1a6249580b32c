/**
 * The operations side of `SqliteStore` as queries: finished tasks for retention, the store's size
 * (`stats`), and giving deleted pages back to the file system (`reclaimSpace`, `vacuum`).
 */
import type { DatabaseSync } from "node:sqlite";
import type { TaskStatus } from "@sema-agent/core";
import {
  emptyTaskCounts,
  type FinishedPageRequest,
  finishedPageOf,
  largestTasks,
  principalSizes,
  type ReclaimedSpace,
  type StatsRequest,
  type StoreStats,
  type TaskPage,
  type TaskSize,
} from "@sema-agent/core/store-kit";
import { recordOf, TASK_COLUMNS, type TaskRow } from "./rows.ts";
import type { Statements } from "./statements.ts";

/** One `listFinished` page, by the `tasks_finished` partial index (schema 9). */
export function listFinishedRows(sql: Statements, request: FinishedPageRequest): TaskPage {
  const statuses = request.statuses.map((_, i) => `:s${i}`).join(", ");
  const text = `SELECT ${TASK_COLUMNS} FROM tasks
    WHERE parent_task_id IS NULL AND status IN ('completed', 'failed', 'cancelled')
      AND status IN (${statuses}) AND updated_at < :before
      ${request.principal === undefined ? "" : "AND principal = :principal"}
      ${request.cursor === undefined ? "" : "AND (updated_at > :afterAt OR (updated_at = :afterAt AND task_id > :afterId))"}
    ORDER BY updated_at, task_id LIMIT :limit`;
  const params: Record<string, string | number> = { before: request.updatedBefore, limit: request.limit + 1 };
  request.statuses.forEach((status, i) => {
    params[`s${i}`] = status;
  });
  if (request.principal !== undefined) params.principal = request.principal;
  if (request.cursor !== undefined) {
    params.afterAt = request.cursor.updatedAt;
    params.afterId = request.cursor.taskId;
  }
  return finishedPageOf(sql.cached(text).all(params) as TaskRow[], request.limit, recordOf);
}

/** The store's size, or one principal's part of it (blobs and the file stay store-wide). */
export function storeStats(sql: Statements, request: StatsRequest): StoreStats {
  const where = request.principal === undefined ? "" : "WHERE principal = :principal";
  const params: Record<string, string> = request.principal === undefined ? {} : { principal: request.principal };
  const tasks = emptyTaskCounts();
  const counts = sql.cached(`SELECT status, count(*) AS n FROM tasks ${where} GROUP BY status`).all(params) as Array<{
    status: TaskStatus;
    n: number;
  }>;
  for (const { status, n } of counts) tasks[status] = n;
  const blobs = sql.cached("SELECT count(*) AS n, coalesce(sum(length(bytes)), 0) AS bytes FROM blobs").get() as {
    n: number;
    bytes: number;
  };
  const stats: StoreStats = { tasks, blobs: blobs.n, blobBytes: blobs.bytes, storeBytes: fileBytes(sql) };
  if (!request.events) return stats;
  // One pass over the events, grouped by task: the cost of an exact figure on SQLite.
  const sizes = sql
    .cached(
      `SELECT t.task_id AS taskId, t.principal, t.status, count(e.seq) AS events,
        coalesce(sum(length(CAST(e.body AS BLOB))), 0) AS logBytes
      FROM tasks t LEFT JOIN events e ON e.task_no = t.task_no ${where.replace("principal", "t.principal")}
      GROUP BY t.task_no`,
    )
    .all(params) as unknown as TaskSize[];
  stats.events = sizes.reduce((sum, size) => sum + size.events, 0);
  stats.logBytes = sizes.reduce((sum, size) => sum + size.logBytes, 0);
  stats.largest = largestTasks(sizes, request.largest);
  stats.principals = principalSizes(sizes);
  return stats;
}

/** The database's size: its pages, free ones included (what the file takes once checkpointed). */
function fileBytes(sql: Statements): number {
  const pages = sql.cached("PRAGMA page_count").get() as { page_count: number };
  const size = sql.cached("PRAGMA page_size").get() as { page_size: number };
  return pages.page_count * size.page_size;
}

/**
 * Give free pages back to the file system: in `auto_vacuum = INCREMENTAL` (every file created
 * since schema 9) an incremental vacuum moves them to the end and truncates, then a checkpoint
 * writes that to the file. A file made before keeps its free pages for reuse (see `vacuum`).
 */
export function reclaim(db: DatabaseSync, sql: Statements): ReclaimedSpace {
  const bytesBefore = fileBytes(sql);
  const mode = sql.cached("PRAGMA auto_vacuum").get() as { auto_vacuum: number };
  if (mode.auto_vacuum === 2) db.exec("PRAGMA incremental_vacuum");
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return { bytesBefore, bytesAfter: fileBytes(sql) };
}

/**
 * Rewrite the whole file (`VACUUM`), switching it to `auto_vacuum = INCREMENTAL` on the way, so
 * a file made before schema 9 shrinks now and `reclaim` works on it from then on. It holds the
 * write lock for the whole rewrite and needs free disk space as large as the file.
 */
export function vacuumFile(db: DatabaseSync, sql: Statements): ReclaimedSpace {
  const bytesBefore = fileBytes(sql);
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  db.exec("VACUUM");
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return { bytesBefore, bytesAfter: fileBytes(sql) };
}
