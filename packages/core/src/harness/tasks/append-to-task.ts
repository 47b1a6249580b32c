/**
 * Appending at the end of a task's log from outside a leg (an input, a decision, a cancel): read
 * where the log is, decide what to append given that, append conditionally, and on a conflict
 * (someone else appended first) decide again from the new end. One loop for every such writer.
 */
import type { TaskState } from "../../core/fold.ts";
import type { Store, TaskRecord } from "../../ports/store.ts";
import { isSemaError } from "../../protocol/errors.ts";
import type { StoredEvent, TaskEvent } from "../../protocol/task-event.ts";
import { loadState } from "../leg/event-writer.ts";

/** Decide from the task's record (cheap); `undefined` appends nothing. */
export async function appendToTask(
  store: Store,
  taskId: string,
  decide: (record: TaskRecord) => TaskEvent[] | undefined,
): Promise<StoredEvent[] | undefined> {
  for (;;) {
    const record = await store.getTask(taskId);
    const events = decide(record);
    if (events === undefined) return undefined;
    try {
      return await store.append(taskId, events, { expectedSeq: record.lastSeq });
    } catch (error) {
      if (!isSemaError(error, "SeqConflict")) throw error;
    }
  }
}

/** Decide from the task's folded state (for decisions that need the log, not just the summary). */
export async function appendToState(
  store: Store,
  taskId: string,
  decide: (state: TaskState) => TaskEvent[] | undefined | Promise<TaskEvent[] | undefined>,
): Promise<StoredEvent[] | undefined> {
  for (;;) {
    const { folder } = await loadState(store, taskId);
    const events = await decide(folder.state);
    if (events === undefined) return undefined;
    try {
      return await store.append(taskId, events, { expectedSeq: folder.state.lastSeq });
    } catch (error) {
      if (!isSemaError(error, "SeqConflict")) throw error;
    }
  }
}
