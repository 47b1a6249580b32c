/**
 * Applying a retention policy to a store: list finished root tasks old enough for some rule,
 * decide each by its own rule, archive it first if asked, delete it with its children, and give
 * the space back. The tasks due on a page (`batchSize`, default 100) are archived one after the
 * other, then deleted by concurrent `deleteTask` calls, which a store with group commit (SQLite)
 * runs in a few transactions, each task inside a savepoint of its own: a task is still deleted
 * whole or not at all, so a kill at any point leaves every task wholly there or wholly gone, and a
 * run again after it picks up where it stopped.
 */
import type { Store } from "@sema-agent/core";
import { isSemaError } from "@sema-agent/core/protocol";
import type { ReclaimedSpace } from "@sema-agent/core/store-kit";
import { exportTask } from "@sema-agent/core/time-travel";
import type { ArchiveSink } from "./archive-sink.ts";
import { dueAction, listingBounds, type RetentionPolicy } from "./policy.ts";

/** A task retention removed (or, on a dry run, would remove). */
export interface PrunedTask {
  taskId: string;
  principal: string;
  status: string;
  updatedAt: string;
  action: "delete" | "archive";
  /** Tasks removed with it: itself and its descendants (absent on a dry run). */
  tasks?: number;
  events?: number;
  logBytes?: number;
}

/** What a run of retention did. */
export interface PruneReport {
  removed: PrunedTask[];
  /** Due tasks the store refused (live again, or gone already), with why. */
  skipped: Array<{ taskId: string; reason: string }>;
  /** The space given back, when the store can (SQLite). */
  reclaimed?: ReclaimedSpace;
}

/** How to run retention: the policy, the time, whose tasks, and whether to change anything. */
export interface PruneOptions {
  policy: RetentionPolicy;
  nowMs: number;
  /** Only this principal's tasks. */
  principal?: string;
  /** List what is due and change nothing. */
  dryRun?: boolean;
  /** Where `archive` rules write; required when a rule archives. */
  archive?: ArchiveSink;
  /** Stop after this many tasks (a background pass does a bounded amount of work). */
  maxTasks?: number;
  /**
   * Tasks listed, archived and deleted together: default 100, at most 1000. Deleted by
   * concurrent `deleteTask` calls, so a store that groups concurrent writes commits them in a
   * few transactions instead of one each.
   */
  batchSize?: number;
  /** Called after each task removed (the kill points of the fault-injection tests). */
  onRemoved?: (task: PrunedTask) => void;
  /**
   * Called with every task id a deletion removed (the task and its descendants), after it
   * committed: for what lives beside the store, such as A2A push configs.
   */
  onDeleted?: (taskIds: readonly string[]) => Promise<void>;
}

/** Run retention over `store` (see the module comment). The store needs `listFinished` and `deleteTask`. */
export async function pruneStore(store: Store, options: PruneOptions): Promise<PruneReport> {
  const report: PruneReport = { removed: [], skipped: [] };
  const bounds = listingBounds(options.policy);
  if (bounds === undefined) return report;
  if (store.listFinished === undefined || store.deleteTask === undefined)
    throw new Error("this store cannot delete tasks (it has no listFinished or deleteTask)");
  const max = options.maxTasks ?? Number.POSITIVE_INFINITY;
  const batchSize = options.batchSize ?? 100;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000)
    throw new RangeError(`batchSize must be an integer from 1 to 1000, got ${batchSize}`);
  let cursor: string | undefined;
  do {
    const page = await store.listFinished({
      updatedBeforeMs: options.nowMs - bounds.olderThanMs + 1,
      statuses: bounds.statuses,
      limit: batchSize,
      ...(options.principal === undefined ? {} : { principal: options.principal }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    cursor = page.nextCursor;
    const due: PrunedTask[] = [];
    for (const task of page.tasks) {
      if (report.removed.length + due.length >= max) break;
      const [created] = await store.read(task.taskId, { limit: 1 });
      const agent = created?.type === "task_created" ? created.agent : undefined;
      const candidate = {
        principal: task.principal,
        status: task.summary.status,
        updatedAt: task.updatedAt,
        ...(agent === undefined ? {} : { agent }),
      };
      const action = dueAction(options.policy, candidate, options.nowMs);
      if (action === undefined) continue;
      const { principal, status, updatedAt } = candidate;
      due.push({ taskId: task.taskId, principal, status, updatedAt, action });
    }
    if (options.dryRun === true) report.removed.push(...due);
    else await removeBatch(store, due, options, report);
    if (report.removed.length >= max) break;
  } while (cursor !== undefined);
  return finish(store, report, options);
}

/** Whether `error` says the task is live again or gone already: skipped, not a failure of the run. */
function isSkip(error: unknown): boolean {
  return isSemaError(error) && (error.code === "TaskLive" || error.code === "TaskNotFound");
}

/** Archive each task of `due` that archives (durable before any delete), then delete them all concurrently. */
async function removeBatch(store: Store, due: readonly PrunedTask[], options: PruneOptions, report: PruneReport) {
  const deleteTask = store.deleteTask?.bind(store);
  if (deleteTask === undefined || due.length === 0) return;
  const ready: PrunedTask[] = [];
  for (const pruned of due) {
    if (pruned.action === "archive") {
      if (options.archive === undefined) throw new Error("a retention rule archives, but no archive is set");
      try {
        // Durable before the delete: a kill between the two leaves the task and its archive,
        // and the next run writes the same file again, then deletes.
        await options.archive.write(pruned.taskId, await exportTask(store, pruned.taskId, { withChildren: true }));
      } catch (error) {
        if (!isSkip(error)) throw error;
        report.skipped.push({ taskId: pruned.taskId, reason: (error as Error).message });
        continue;
      }
    }
    ready.push(pruned);
  }
  const outcomes = await Promise.allSettled(ready.map((pruned) => deleteTask(pruned.taskId)));
  const deletedIds: string[] = [];
  let failure: { error: unknown } | undefined;
  outcomes.forEach((outcome, i) => {
    const pruned = ready[i] as PrunedTask;
    if (outcome.status === "fulfilled") {
      const deleted = outcome.value;
      Object.assign(pruned, { tasks: deleted.taskIds.length, events: deleted.events, logBytes: deleted.logBytes });
      report.removed.push(pruned);
      deletedIds.push(...deleted.taskIds);
    } else if (isSkip(outcome.reason))
      report.skipped.push({ taskId: pruned.taskId, reason: (outcome.reason as Error).message });
    else failure ??= { error: outcome.reason };
  });
  if (deletedIds.length > 0) await options.onDeleted?.(deletedIds);
  for (const pruned of ready) if (pruned.tasks !== undefined) options.onRemoved?.(pruned);
  if (failure !== undefined) throw failure.error;
}

async function finish(store: Store, report: PruneReport, options: PruneOptions): Promise<PruneReport> {
  if (options.dryRun !== true && report.removed.length > 0 && store.reclaimSpace !== undefined)
    report.reclaimed = await store.reclaimSpace();
  return report;
}
