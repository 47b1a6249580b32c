/**
 * The one-round-trip append: a leg appends to a task whose summary it wrote itself a moment ago,
 * so it can reduce the summary without reading the row and let the database check, in the same
 * statement that writes, that nothing changed since (seq, summary text, lease). Four round trips
 * become one; when anything did change, nothing is written and the locking path takes over. The
 * turns' usage counters move in the same statement, so they count exactly the appends written.
 */
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { forkSourceOf, type SummaryCache, summarizeAfter, wantsWorker } from "@sema-agent/core/store-kit";
import { isUniqueViolation } from "./connection.ts";
import type { Queries } from "./queries.ts";
import type { Database, PoolLane } from "./session.ts";
import { addTurnUsage, turnUsageColumns, turnUsageParams } from "./usage-counters.ts";
import { inputIdsOf, storedEvents } from "./write-events.ts";

export interface UnchangedAppend {
  taskId: string;
  events: readonly TaskEvent[];
  expectedSeq: number;
  leaseToken: string | undefined;
  /** The `sema_runnable` payload, sent if the task wants a worker and no lease is live. */
  runnablePayload: string;
  /** The pool the statement runs on: `priority` for a leg a person waits on. */
  pool: PoolLane;
}

/**
 * Append in one statement if the task is still as `summaries` remembers it; undefined when it is
 * not (or nothing is remembered), with nothing written.
 */
export async function appendIfUnchanged(
  db: Database,
  sql: Queries,
  summaries: SummaryCache,
  append: UnchangedAppend,
): Promise<StoredEvent[] | undefined> {
  const { taskId, events, expectedSeq } = append;
  const known = summaries.peek(taskId);
  if (known === undefined || events.length === 0) return undefined;
  const summary = summarizeAfter(events, known.summary, expectedSeq);
  const text = summary === known.summary ? known.text : JSON.stringify(summary);
  const bodies = events.map((event) => JSON.stringify(event));
  const seqs = events.map((_, i) => expectedSeq + i + 1);
  const lastSeq = expectedSeq + events.length;
  // The turns' usage is counted in the same statement, only if it writes.
  const usage = turnUsageColumns();
  addTurnUsage(usage, taskId, events);
  let rows: Array<{ at: string }>;
  try {
    rows = await db.query<{ at: string }>(
      sql.appendIfUnchanged,
      [
        taskId,
        expectedSeq,
        known.text,
        append.leaseToken ?? null,
        lastSeq,
        text,
        summary.status,
        wantsWorker(summary),
        seqs,
        bodies,
        inputIdsOf(events) ?? [],
        `${taskId}:${lastSeq}`,
        append.runnablePayload,
        ...turnUsageParams(usage),
        forkSourceOf(summary),
      ],
      append.pool,
    );
  } catch (error) {
    // A writer that does not take the row lock got there first: the locking path reports it.
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  const at = rows[0]?.at;
  if (at === undefined) return undefined;
  summaries.remember(taskId, text, summary);
  return storedEvents(bodies, taskId, expectedSeq, at);
}
