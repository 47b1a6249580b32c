/**
 * Validation at append: an event that fails its schema is refused with the failing path and
 * nothing of its batch is written. Every store adapter calls this before it writes.
 */
import { InvalidEventError } from "../protocol/errors.ts";
import { type TaskEvent, taskEventSchema } from "../protocol/task-event.ts";
import { isSurelyValidEvent } from "./event-fast-check.ts";

/** Throws `InvalidEvent` for the first event of `events` that fails its schema. */
export function validateEvents(events: readonly unknown[]): asserts events is TaskEvent[] {
  for (let index = 0; index < events.length; index++) {
    if (isSurelyValidEvent(events[index])) continue;
    const result = taskEventSchema.safeParse(events[index]);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = issue === undefined ? "" : issue.path.map(String).join(".");
      throw new InvalidEventError(path, issue?.message ?? "invalid", index);
    }
  }
}
