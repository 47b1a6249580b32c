/**
 * Group commit of appends on PostgreSQL: the one-statement append (`append-unchanged.ts`) for
 * many tasks at once. Each append is reduced from the summary this store wrote last for its task,
 * and the statement writes it only if the row is still at that seq with that summary and, given a
 * token, under that live lease — so each task's append stays conditional on its own, and one that
 * finds its row moved is left out of the batch (nothing of it written) and retried alone on the
 * locking path, which reports a `SeqConflict` or a lost lease for that task only. The turns'
 * usage counters move in the same statement, for the appends it writes only. The batch is
 * one transaction: its callers hear back once it committed, and if it fails, every caller gets
 * the retryable `StoreUnavailable`.
 */
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import {
  forkSourceOf,
  type SummaryCache,
  summarizeAfter,
  type WriteLane,
  wantsWorker,
} from "@sema-agent/core/store-kit";
import { isUniqueViolation, toStoreError } from "./connection.ts";
import type { Queries } from "./queries.ts";
import { type Database, type PoolLane, poolOf } from "./session.ts";
import { addTurnUsage, turnUsageColumns, turnUsageParams } from "./usage-counters.ts";
import { storedEvents } from "./write-events.ts";

/** One caller's append, waiting for its batch. */
export interface BatchedAppend {
  taskId: string;
  events: readonly TaskEvent[];
  expectedSeq: number;
  leaseToken: string | undefined;
  /** The `sema_runnable` payload, sent if the task wants a worker and no lease is live. */
  runnablePayload: string;
  resolve(stored: StoredEvent[]): void;
  reject(error: unknown): void;
}

/** What a batch needs from its store: the database, its statements, the summaries, the locking path. */
export interface AppendBatchHost {
  db: Database;
  sql: Queries;
  summaries: SummaryCache;
  /** The append alone, on the locking path (on `pool`): for a task whose row moved since this store wrote it. */
  alone(append: BatchedAppend, pool: PoolLane): Promise<StoredEvent[]>;
}

/**
 * Commit `batch` (one append per task) in one statement and settle every caller; a batch of the
 * attended lane runs on the priority lane's pool. Never rejects.
 */
export async function commitAppendBatch(
  host: AppendBatchHost,
  batch: readonly BatchedAppend[],
  lane: WriteLane = "routine",
): Promise<void> {
  const pool = poolOf(lane);
  const alone = (append: BatchedAppend) => host.alone(append, pool).then(append.resolve, append.reject);
  const columns = {
    taskIds: [] as string[],
    expected: [] as number[],
    known: [] as string[],
    tokens: [] as Array<string | null>,
    lastSeqs: [] as number[],
    texts: [] as string[],
    statuses: [] as string[],
    wants: [] as boolean[],
    runnable: [] as string[],
    forkedFrom: [] as Array<string | null>,
    eventTasks: [] as string[],
    seqs: [] as number[],
    bodies: [] as string[],
    inputIds: [] as Array<string | null>,
    usage: turnUsageColumns(),
  };
  const planned: Array<{
    append: BatchedAppend;
    bodies: string[];
    text: string;
    summary: ReturnType<typeof summarizeAfter>;
  }> = [];
  const unplanned: BatchedAppend[] = [];
  for (const append of batch) {
    const known = host.summaries.peek(append.taskId);
    if (known === undefined || append.events.length === 0) {
      unplanned.push(append);
      continue;
    }
    const summary = summarizeAfter(append.events, known.summary, append.expectedSeq);
    const text = summary === known.summary ? known.text : JSON.stringify(summary);
    const bodies = append.events.map((event) => JSON.stringify(event));
    columns.taskIds.push(append.taskId);
    columns.expected.push(append.expectedSeq);
    columns.known.push(known.text);
    columns.tokens.push(append.leaseToken ?? null);
    columns.lastSeqs.push(append.expectedSeq + append.events.length);
    columns.texts.push(text);
    columns.statuses.push(summary.status);
    columns.wants.push(wantsWorker(summary));
    columns.runnable.push(append.runnablePayload);
    columns.forkedFrom.push(forkSourceOf(summary));
    append.events.forEach((event, i) => {
      columns.eventTasks.push(append.taskId);
      columns.seqs.push(append.expectedSeq + i + 1);
      columns.bodies.push(bodies[i] as string);
      columns.inputIds.push(event.type === "human_input" ? event.inputId : null);
    });
    addTurnUsage(columns.usage, append.taskId, append.events);
    planned.push({ append, bodies, text, summary });
  }
  const others = unplanned.map(alone);
  if (planned.length === 0) {
    await Promise.all(others);
    return;
  }
  let rows: Array<{ task_id: string; at: string }>;
  try {
    rows = await host.db.query<{ task_id: string; at: string }>(
      host.sql.appendBatch,
      [
        columns.taskIds,
        columns.expected,
        columns.known,
        columns.tokens,
        columns.lastSeqs,
        columns.texts,
        columns.statuses,
        columns.wants,
        columns.runnable,
        columns.eventTasks,
        columns.seqs,
        columns.bodies,
        columns.inputIds,
        ...turnUsageParams(columns.usage),
        columns.forkedFrom,
      ],
      pool,
    );
  } catch (error) {
    // A writer that does not take the row lock got there first: nothing was written; each alone.
    if (isUniqueViolation(error)) {
      await Promise.all([...others, ...planned.map(({ append }) => alone(append))]);
      return;
    }
    const failure = toStoreError(error, "group commit");
    for (const { append } of planned) append.reject(failure);
    await Promise.all(others);
    return;
  }
  const written = new Map(rows.map((row) => [row.task_id, row.at]));
  const retried: Array<Promise<void>> = [];
  for (const { append, bodies, text, summary } of planned) {
    const at = written.get(append.taskId);
    if (at === undefined) {
      retried.push(alone(append));
      continue;
    }
    host.summaries.remember(append.taskId, text, summary);
    append.resolve(storedEvents(bodies, append.taskId, append.expectedSeq, at));
  }
  await Promise.all([...others, ...retried]);
}
