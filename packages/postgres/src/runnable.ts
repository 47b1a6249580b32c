/**
 * Which tasks want a worker, and handing them out: the `wants_worker` flag kept on every append,
 * the runnable listing (candidates by the partial index, the rule at the database's time), and
 * claims that lock candidates with `FOR UPDATE SKIP LOCKED` so concurrent workers split the work.
 */
import {
  assertLimit,
  assertTtl,
  type Claim,
  type ClaimOptions,
  isRunnableRecord,
  newLease,
  type TaskRecord,
} from "@sema-agent/core";
import type { Queries } from "./queries.ts";
import { recordOf, type TaskRow } from "./rows.ts";
import type { Database } from "./session.ts";

/** Candidate rows fetched per page by `listRunnable` before the rule filters them. */
const RUNNABLE_PAGE = 200;

/** Up to `limit` runnable tasks, oldest activity first, by the rule at the database's time. */
export async function listRunnableTasks(db: Database, sql: Queries, limit: number): Promise<TaskRecord[]> {
  const [clock] = await db.query<{ now_ms: number }>(sql.nowMs, []);
  const now = clock?.now_ms ?? Date.now();
  const nowAt = new Date(now);
  // The query yields candidates (see `wantsWorker`); the rule, at the database time, has the last word.
  const runnable: TaskRecord[] = [];
  let position: [string, string] = ["", "0"];
  for (;;) {
    const rows = await db.query<TaskRow>(sql.runnable, [nowAt, ...position, RUNNABLE_PAGE]);
    for (const row of rows) {
      const record = recordOf(row);
      if (!isRunnableRecord(record, now)) continue;
      runnable.push(record);
      if (runnable.length === limit) return runnable;
    }
    const last = rows.at(-1);
    if (rows.length < RUNNABLE_PAGE || last === undefined) return runnable;
    position = [last.updated_at, last.task_no];
  }
}

/** Lease up to `limit` runnable tasks to `holder` in one transaction, skipping rows others hold locked. */
export async function claimRunnableTasks(db: Database, sql: Queries, options: ClaimOptions): Promise<Claim[]> {
  const limit = assertLimit(options.limit, 1, 1000);
  assertTtl(options.ttlMs);
  await db.open();
  const exclude = new Set(options.exclude ?? []);
  // Candidates unlocked (a racing claimer may take some), with headroom for those it takes.
  const listed = await listRunnableTasks(db, sql, Math.min(10_000, limit * 4 + 8 + exclude.size));
  const ids = listed.map((record) => record.taskId).filter((id) => !exclude.has(id));
  if (ids.length === 0) return [];
  return db.tx(async (tx) => {
    const now = (await tx.client.query<{ now_ms: number }>(tx.sql.nowMs)).rows[0]?.now_ms ?? Date.now();
    const rows = (await tx.client.query<TaskRow>(tx.sql.claim, [ids, new Date(now), limit])).rows;
    const claims: Claim[] = [];
    for (const row of rows) {
      const record = recordOf(row);
      // Locked, so this is the row as it is now: the rule has the last word.
      if (!isRunnableRecord(record, now)) continue;
      const expires = new Date(now + options.ttlMs);
      const lease = newLease(record.taskId, options.holder, expires.getTime());
      await tx.client.query(tx.sql.setLease, [row.task_no, lease.token, JSON.stringify(lease.holder), expires]);
      claims.push({ task: { ...record, lease }, lease });
    }
    return claims;
  });
}
