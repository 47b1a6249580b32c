/**
 * Waking a task: now (`wake`, a message from a machine or a relayed third party) or at a time
 * (`wakeAt`, a durable timer stored in the log, so it survives restarts).
 */
import { sanitizeHumanText } from "../../core/human-text.ts";
import { newId } from "../../internal/ids.ts";
import type { Store } from "../../ports/store.ts";
import type { ContentPart } from "../../protocol/content.ts";
import { InvalidInputError, TaskFinishedError } from "../../protocol/errors.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { appendToTask } from "./append-to-task.ts";
import type { ContentOptions } from "./content-ingress.ts";
import { type SentInput, sendInput } from "./send-input.ts";

/**
 * Wake a task with a message from a machine (`system`) or a relayed third party (`external`,
 * named by `from`): text, or content parts (a relayed email's attachments, say) taken as
 * `sendInput` takes them. A running task gets it as a steer; a parked or finished one starts a
 * new leg.
 */
export async function wake(
  store: Store,
  taskId: string,
  options: {
    text: string | readonly ContentPart[];
    source: "system" | "external";
    from?: string;
    /** Limits on image and file parts, and whether URL parts are fetched (see `sendInput`). */
    content?: ContentOptions;
  },
): Promise<SentInput> {
  const actor = options.from === undefined ? undefined : { id: options.from, verified: false };
  return sendInput(store, taskId, {
    text: options.text,
    carrier: "wake",
    source: options.source,
    ...(actor === undefined ? {} : { actor }),
    ...(options.content === undefined ? {} : { content: options.content }),
  });
}

/** When a timer fires. */
export interface WakeAtOptions {
  /** The due time: a Date, an ISO-8601 string, or milliseconds since the epoch. */
  at: Date | string | number;
  text: string;
  source?: "system" | "external";
  from?: string;
}

/**
 * Set a durable timer: at `at`, the task is woken with `text` (a `system` wake by default). It is
 * stored in the log, so it survives restarts: whichever process next looks for runnable tasks after
 * it is due starts the leg. A task that is running gets it as a steer.
 */
export async function wakeAt(
  store: Store,
  taskId: string,
  options: WakeAtOptions,
): Promise<{ wakeId: string; due: string }> {
  const dueMs =
    options.at instanceof Date
      ? options.at.getTime()
      : typeof options.at === "number"
        ? options.at
        : Date.parse(options.at);
  if (!Number.isFinite(dueMs)) throw new InvalidInputError(`wakeAt: not a time: ${String(options.at)}`);
  const due = new Date(dueMs).toISOString();
  const wakeId = newId();
  await appendToTask(store, taskId, (record) => {
    if (record.summary.status === "cancelled") throw new TaskFinishedError(taskId, "cancelled");
    const event: TaskEvent = {
      type: "wake_scheduled",
      v: 1,
      wakeId,
      due,
      text: sanitizeHumanText(options.text, options.source ?? "system"),
      source: options.source ?? "system",
    };
    if (options.from !== undefined) event.from = options.from;
    return [event];
  });
  return { wakeId, due };
}
