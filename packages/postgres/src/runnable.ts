/**
 * Which tasks want a worker, and handing them out: the `wants_worker` flag kept on every append,
 * the runnable listing (candidates by the partial index, the rule at the database's time), and
 * claims that lock candidates with `FOR UPDATE SKIP LOCKED` so concurrent workers split the work.
 */

import type { TaskRecord } from "@sema-agent/core";
import {
  assertLimit,
  assertTtl,
  type Claim,
  type ClaimOptions,
  fairListing,
  fairOrder,
  isRunnableRecord,
  type ListRunnableOptions,
  newLease,
} from "@sema-agent/core/store-kit";
import type { Queries } from "./queries.ts";
import { recordOf, type TaskRow } from "./rows.ts";
import type { Database } from "./session.ts";

/**
 * Candidate rows fetched per page by `listRunnable` before the rule filters them: a claim of 1,000
 * lists up to 4,008, so a page of 200 took 20 queries on the pool behind everything queued.
 */
const RUNNABLE_PAGE = 1000;

/**
 * Up to `limit` runnable tasks, people first (`claimOrderKey`), by the rule at the database's time; at most
 * `perPrincipal` of each principal, none of `excludePrincipals`.
 */
export async function listRunnableTasks(
  db: Database,
  sql: Queries,
  limit: number,
  options: Omit<ListRunnableOptions, "limit"> = {},
  lane: "main" | "priority" = "main",
): Promise<TaskRecord[]> {
  const query = <R extends TaskRow | { now_ms: number }>(text: string, params: unknown[]) =>
    lane === "priority" ? db.priorityQuery<R>(text, params) : db.query<R>(text, params);
  const [clock] = await query<{ now_ms: number }>(sql.nowMs, []);
  const now = clock?.now_ms ?? Date.now();
  const nowAt = new Date(now);
  const per = options.perPrincipal ?? Number.POSITIVE_INFINITY;
  const counts = new Map<string, number>();
  // Principals listed enough are left out of the next pages' query, so a flood of one
  // principal's tasks is skipped by the database instead of paged through.
  const full = new Set(options.excludePrincipals ?? []);
  // The query yields candidates (see `wantsWorker`); the rule, at the database time, has the last word.
  const runnable: TaskRecord[] = [];
  let position: [string, string] = ["", "0"];
  for (;;) {
    const rows = await query<TaskRow & { claim_at: string }>(sql.runnable, [
      nowAt,
      ...position,
      RUNNABLE_PAGE,
      [...full],
    ]);
    for (const row of rows) {
      if (full.has(row.principal)) continue;
      const record = recordOf(row);
      if (!isRunnableRecord(record, now)) continue;
      const count = (counts.get(row.principal) ?? 0) + 1;
      counts.set(row.principal, count);
      if (count >= per) full.add(row.principal);
      runnable.push(record);
      if (runnable.length === limit) return runnable;
    }
    const last = rows.at(-1);
    if (rows.length < RUNNABLE_PAGE || last === undefined) return runnable;
    position = [last.claim_at, last.task_no];
  }
}

/** Lease up to `limit` runnable tasks to `holder` in one transaction, skipping rows others hold locked. */
export async function claimRunnableTasks(db: Database, sql: Queries, options: ClaimOptions): Promise<Claim[]> {
  const limit = assertLimit(options.limit, 1, 1000);
  assertTtl(options.ttlMs);
  await db.open();
  const exclude = new Set(options.exclude ?? []);
  const { fairness } = options;
  // Candidates unlocked (a racing claimer may take some), with headroom for those it takes.
  // On the priority lane: a worker's claim must not wait behind the reads and appends of the legs it
  // already runs (bench:live, 3 workers at N = 10,000: claiming every task took 15 s on the pool).
  const listed =
    fairness === undefined
      ? await listRunnableTasks(db, sql, Math.min(10_000, limit * 4 + 8 + exclude.size), {}, "priority")
      : await listRunnableTasks(db, sql, 10_000, fairListing(limit, fairness, exclude.size), "priority");
  const unexcluded = listed.filter((record) => !exclude.has(record.taskId));
  // A fair claim locks the first of its candidates it can get, in the fair order.
  const ordered = fairness === undefined ? unexcluded : fairOrder(unexcluded, fairness).slice(0, limit * 4 + 8);
  const ids = ordered.map((record) => record.taskId);
  if (ids.length === 0) return [];
  return db.tx(async (tx) => {
    const now = (await tx.client.query<{ now_ms: number }>(tx.sql.nowMs)).rows[0]?.now_ms ?? Date.now();
    // Either way only `limit` rows are locked; a fair claim takes them in the fair order.
    const rows = (
      await tx.client.query<TaskRow>(fairness === undefined ? tx.sql.claim : tx.sql.claimInOrder, [
        ids,
        new Date(now),
        limit,
      ])
    ).rows;
    const claims: Claim[] = [];
    const taskNos: string[] = [];
    const expires = new Date(now + options.ttlMs);
    for (const row of rows) {
      if (claims.length === limit) break;
      const record = recordOf(row);
      // Locked, so this is the row as it is now: the rule has the last word.
      if (!isRunnableRecord(record, now)) continue;
      const lease = newLease(record.taskId, options.holder, expires.getTime());
      taskNos.push(row.task_no);
      claims.push({ task: { ...record, lease }, lease });
    }
    // Every lease of the claim in one statement: a round trip per task made a claim of 1,000
    // take seconds on a busy pool (bench:live, 3 workers at N = 10,000).
    const [first] = claims;
    if (first !== undefined)
      await tx.client.query(tx.sql.setLeases, [
        taskNos,
        JSON.stringify(first.lease.holder),
        expires,
        claims.map((claim) => claim.lease.token),
      ]);
    return claims;
  }, "priority");
}
