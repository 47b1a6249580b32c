/**
 * Controlling a task from outside its leg: interrupt the running leg, cancel the task (and its
 * children), ask for a parked task's next leg. Each is one conditional append, decided on the
 * task's current state and retried when another writer got in first.
 */
import { isTerminal } from "../../core/task-summary.ts";
import type { Store } from "../../ports/store.ts";
import { isSemaError, TaskFinishedError } from "../../protocol/errors.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import { reportEnd } from "../delegation/child-tasks.ts";
import { appendToTask } from "./append-to-task.ts";
import { isRunning } from "./send-input.ts";

/** Ask the running leg to stop at once and park (`parked:interrupt`). False when no leg runs. */
export async function interrupt(
  store: Store,
  taskId: string,
  options: { actor?: ActorAssertion } = {},
): Promise<boolean> {
  const appended = await appendToTask(store, taskId, (record) => {
    if (!isRunning(record)) return undefined;
    const event: TaskEvent = { type: "interrupt_requested", v: 1 };
    if (options.actor !== undefined) event.actor = { ...options.actor };
    return [event];
  });
  return appended !== undefined;
}

/**
 * End the task for good, and its children with it. A running leg stops at once; its tools see
 * their signal abort. A task that has ended — completed, failed or already cancelled — cannot be
 * cancelled: its outcome is history (`TaskFinishedError`, decided in the same conditional append,
 * so a task that completes while the cancel is on its way is never rewritten).
 */
export async function cancel(
  store: Store,
  taskId: string,
  options: { reason?: string; actor?: ActorAssertion } = {},
): Promise<void> {
  await cancelOne(store, taskId, options);
  // A child cancelled is a child result like any other end: its parent hears of it now, not when
  // a leg it no longer has would end (a parent being cancelled is left alone by the report).
  const { parentTaskId } = await store.getTask(taskId);
  if (parentTaskId !== undefined) await reportEnd(store, taskId, parentTaskId);
  for (const event of await store.read(taskId)) {
    if (event.type !== "child_task" || event.phase !== "spawned") continue;
    const child = await store.getTask(event.childTaskId).catch(() => undefined);
    if (child === undefined || isTerminal(child.summary.status)) continue;
    await cancel(store, event.childTaskId, {
      reason: `its parent task ${taskId} was cancelled`,
      ...(options.actor === undefined ? {} : { actor: options.actor }),
    }).catch((error: unknown) => {
      // The child ended on its own meanwhile: nothing left to cancel there.
      if (!isSemaError(error, "TaskFinished")) throw error;
    });
  }
}

async function cancelOne(
  store: Store,
  taskId: string,
  options: { reason?: string; actor?: ActorAssertion },
): Promise<void> {
  await appendToTask(store, taskId, (record) => {
    const { status } = record.summary;
    if (isTerminal(status)) throw new TaskFinishedError(taskId, status);
    const event: TaskEvent = { type: "task_cancelled", v: 1 };
    if (options.reason !== undefined) event.reason = options.reason;
    if (options.actor !== undefined) event.actor = options.actor;
    return [event];
  });
}

/**
 * Ask for a parked task's next leg, durably: the request is in the log, so a worker on any host
 * picks the task up (the model sees nothing of it). False when a leg already runs.
 */
export async function requestResume(
  store: Store,
  taskId: string,
  options: { actor?: ActorAssertion } = {},
): Promise<boolean> {
  const appended = await appendToTask(store, taskId, (record) => {
    const { status } = record.summary;
    if (isTerminal(status)) throw new TaskFinishedError(taskId, status);
    if (status !== "parked") return undefined;
    const event: TaskEvent = { type: "resume_requested", v: 1 };
    if (options.actor !== undefined) event.actor = { ...options.actor };
    return [event];
  });
  return appended !== undefined;
}
