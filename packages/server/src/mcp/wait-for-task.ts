/**
 * Follow a task from the log until it needs nobody but a person or has ended: completed, failed
 * or cancelled, or parked on an approval, an input, a budget or an interrupt, or a fork (or an
 * import) parked where it was copied, which runs on only when asked. Tasks parked for a
 * timer, a child, a crash or a shutdown go on by themselves, so waiting goes on with them. The
 * log is the only source: a wait started in another process, or after a restart, sees the same.
 */
import { isTerminal, type StoredEvent, type TaskRecord } from "@sema-agent/core";
import type { Caller } from "../ingress/caller.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";

/** Park reasons that wait for a person: a wait ends there. */
const PERSON_REASONS: ReadonlySet<string> = new Set(["approval", "input", "budget", "interrupt", "forked"]);

/** Events after which the task may have settled, so the record is read again. */
const SETTLING: ReadonlySet<string> = new Set(["leg_ended", "task_completed", "task_failed", "task_cancelled"]);

/** Whether the task has ended, or parked waiting for a person, with no leg open. */
export function settled(record: TaskRecord): boolean {
  const { summary } = record;
  if (summary.legId !== undefined) return false;
  if (isTerminal(summary.status)) return true;
  return (
    summary.status === "parked" &&
    !summary.runnable &&
    summary.parkedReason !== undefined &&
    PERSON_REASONS.has(summary.parkedReason)
  );
}

export interface WaitOptions {
  /** Ends the wait (the client cancelled, the session closed); the task goes on. */
  signal: AbortSignal;
  /** Each event from `afterSeq` on, in order (progress). */
  onEvent?: (event: StoredEvent) => void | Promise<void>;
  /**
   * Asked when the task parks on approvals; true when it decided every one of them, so the
   * wait goes on while the task runs again.
   */
  onApprovals?: (record: TaskRecord) => Promise<boolean>;
  /** Report events after this seq (default: from the start of the log). */
  afterSeq?: number;
}

/** The task's record once it has settled (see `settled`), or when `signal` ended the wait. */
export async function waitForTask(
  deps: TaskDeps,
  caller: Caller,
  taskId: string,
  options: WaitOptions,
): Promise<TaskRecord> {
  const { store } = deps;
  let record = await ownTask(store, taskId, caller);
  let afterSeq = options.afterSeq ?? 0;
  for (;;) {
    if (settled(record)) {
      // Settled before the watch saw its last events (a fast task settles before the wait even
      // starts): report them first, so progress always ends with what the result says.
      if (options.onEvent !== undefined && afterSeq < record.lastSeq)
        for (const event of await store.read(taskId, { afterSeq })) {
          afterSeq = event.seq;
          await options.onEvent(event);
        }
      const approvals = record.summary.status === "parked" && record.summary.openApprovals.length > 0;
      if (!approvals || options.onApprovals === undefined || !(await options.onApprovals(record))) return record;
    }
    if (options.signal.aborted) return record;
    let changed = false;
    for await (const event of store.watch(taskId, { afterSeq, signal: options.signal })) {
      afterSeq = event.seq;
      await options.onEvent?.(event);
      if (!SETTLING.has(event.type)) continue;
      record = await store.getTask(taskId);
      if (settled(record)) {
        changed = true;
        break;
      }
    }
    if (!changed) return await store.getTask(taskId);
  }
}
