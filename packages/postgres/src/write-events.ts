/** Writing events into the log: the input index, and the stored form handed back. */
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { stampEvent } from "@sema-agent/core/store-kit";

/** Each event's input id (null for other events), or null when the batch has no input at all. */
export function inputIdsOf(events: readonly TaskEvent[]): Array<string | null> | null {
  if (!events.some((event) => event.type === "human_input")) return null;
  return events.map((event) => (event.type === "human_input" ? event.inputId : null));
}

/** The events as stored: parsed back from what was written, so they share nothing with the caller's. */
export function storedEvents(bodies: readonly string[], taskId: string, lastSeq: number, at: string): StoredEvent[] {
  return bodies.map((body, i) => stampEvent(JSON.parse(body) as TaskEvent, taskId, lastSeq + i + 1, at));
}
