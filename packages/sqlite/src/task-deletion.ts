/**
 * Deleting a task whole, inside the write transaction that runs it (`deleteTask` command): the
 * family read and judged under the write lock, then every row of each task, then the blobs no
 * remaining event references (by the `blob_refs` index, schema 12) and no one put within
 * `BLOB_GRACE_MS`. One transaction, so a crash leaves the family wholly there or gone.
 */
import { TaskNotFoundError } from "@sema-agent/core/protocol";
import { assertDeletable, BLOB_GRACE_MS, type DeletedTask } from "@sema-agent/core/store-kit";
import { recordOf, TASK_COLUMNS, type TaskRow } from "./rows.ts";
import type { Statements } from "./statements.ts";

/** Every descendant of a task (by the `tasks_children` index), parents before children. */
const DESCENDANTS = `WITH RECURSIVE family (task_id, depth) AS (
    SELECT task_id, 1 FROM tasks WHERE parent_task_id = ?
    UNION ALL
    SELECT t.task_id, family.depth + 1 FROM tasks t JOIN family ON t.parent_task_id = family.task_id
  )
  SELECT ${TASK_COLUMNS} FROM family JOIN tasks USING (task_id) ORDER BY family.depth, task_no`;

/** Delete `taskId` and its descendants, or throw `TaskLive` / `TaskNotFound` having changed nothing. */
export function deleteTaskRows(sql: Statements, taskId: string, nowMs: number): DeletedTask {
  const row = sql.task.get(taskId) as TaskRow | undefined;
  if (row === undefined) throw new TaskNotFoundError(taskId);
  const ancestors = [];
  for (let parent = row.parent_task_id; parent !== null; ) {
    const found = sql.task.get(parent) as TaskRow | undefined;
    if (found === undefined) break;
    ancestors.push(recordOf(found));
    parent = found.parent_task_id;
  }
  const descendants = sql.cached(DESCENDANTS).all(taskId) as TaskRow[];
  assertDeletable(
    { task: recordOf(row), ancestors, descendants: descendants.map((descendant) => recordOf(descendant)) },
    nowMs,
  );
  const deleted: DeletedTask = { taskIds: [], events: 0, logBytes: 0, blobs: [] };
  const digests = new Set<string>();
  for (const member of [row, ...descendants]) {
    const size = sql
      .cached(
        "SELECT count(*) AS events, coalesce(sum(length(CAST(body AS BLOB))), 0) AS bytes FROM events WHERE task_no = ?",
      )
      .get(member.task_no) as { events: number; bytes: number };
    const refs = sql.cached("SELECT digest FROM blob_refs WHERE task_no = ?").all(member.task_no) as Array<{
      digest: string;
    }>;
    for (const { digest } of refs) digests.add(digest);
    sql.cached("DELETE FROM blob_refs WHERE task_no = ?").run(member.task_no);
    sql.cached("DELETE FROM inputs WHERE task_no = ?").run(member.task_no);
    sql.cached("DELETE FROM snapshots WHERE task_no = ?").run(member.task_no);
    sql.cached("DELETE FROM events WHERE task_no = ?").run(member.task_no);
    sql.cached("DELETE FROM tasks WHERE task_no = ?").run(member.task_no);
    deleted.taskIds.push(member.task_id);
    deleted.events += size.events;
    deleted.logBytes += size.bytes;
  }
  // A blob another task's event references stays (one search of blob_refs), and so does one put
  // within the grace period: an event naming it may be on its way.
  for (const digest of [...digests].sort()) {
    if (sql.cached("SELECT 1 FROM blob_refs WHERE digest = ? LIMIT 1").get(digest) !== undefined) continue;
    if (sql.cached("SELECT 1 FROM blob_puts WHERE digest = ? AND put_at > ?").get(digest, nowMs - BLOB_GRACE_MS))
      continue;
    sql.cached("DELETE FROM blob_puts WHERE digest = ?").run(digest);
    if (Number(sql.cached("DELETE FROM blobs WHERE digest = ?").run(digest).changes) > 0) deleted.blobs.push(digest);
  }
  return deleted;
}
