/**
 * Applying a retention policy to a store: list finished root tasks old enough for some rule,
 * decide each by its own rule, archive it first if asked, delete it with its children, and give
 * the space back. Each task is one `deleteTask` transaction, so a kill at any point leaves every
 * task wholly there or wholly gone, and a run again after it picks up where it stopped.
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
  let cursor: string | undefined;
  do {
    const page = await store.listFinished({
      updatedBeforeMs: options.nowMs - bounds.olderThanMs + 1,
      statuses: bounds.statuses,
      ...(options.principal === undefined ? {} : { principal: options.principal }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    cursor = page.nextCursor;
    for (const task of page.tasks) {
      if (report.removed.length >= max) return finish(store, report, options);
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
      const pruned: PrunedTask = { taskId: task.taskId, principal, status, updatedAt, action };
      if (options.dryRun === true) {
        report.removed.push(pruned);
        continue;
      }
      try {
        if (action === "archive") {
          if (options.archive === undefined) throw new Error("a retention rule archives, but no archive is set");
          // Durable before the delete: a kill between the two leaves the task and its archive,
          // and the next run writes the same file again, then deletes.
          await options.archive.write(task.taskId, await exportTask(store, task.taskId, { withChildren: true }));
        }
        const deleted = await store.deleteTask(task.taskId);
        Object.assign(pruned, { tasks: deleted.taskIds.length, events: deleted.events, logBytes: deleted.logBytes });
        report.removed.push(pruned);
        await options.onDeleted?.(deleted.taskIds);
        options.onRemoved?.(pruned);
      } catch (error) {
        if (!isSemaError(error) || (error.code !== "TaskLive" && error.code !== "TaskNotFound")) throw error;
        report.skipped.push({ taskId: task.taskId, reason: error.message });
      }
    }
  } while (cursor !== undefined);
  return finish(store, report, options);
}

async function finish(store: Store, report: PruneReport, options: PruneOptions): Promise<PruneReport> {
  if (options.dryRun !== true && report.removed.length > 0 && store.reclaimSpace !== undefined)
    report.reclaimed = await store.reclaimSpace();
  return report;
}
