/** A stored event without the identity the store stamped (`taskId`, `seq`, `at`): ready to write again. */
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";

export function unstamped(event: StoredEvent): TaskEvent {
  const { taskId: _taskId, seq: _seq, at: _at, ...rest } = event;
  return rest as TaskEvent;
}
