/** Writing events into the log: the rows, the input index, and the stored form handed back. */
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { stampEvent } from "@sema-agent/core/store-kit";
import type { Tx } from "./session.ts";

/** Each event's input id (null for other events), or null when the batch has no input at all. */
export function inputIdsOf(events: readonly TaskEvent[]): Array<string | null> | null {
  if (!events.some((event) => event.type === "human_input")) return null;
  return events.map((event) => (event.type === "human_input" ? event.inputId : null));
}

/** The events as stored: parsed back from what was written, so they share nothing with the caller's. */
export function storedEvents(bodies: readonly string[], taskId: string, lastSeq: number, at: string): StoredEvent[] {
  return bodies.map((body, i) => stampEvent(JSON.parse(body) as TaskEvent, taskId, lastSeq + i + 1, at));
}

/** Insert `events` as the first of a new task's log, all stamped `at`; returns them stored. */
export async function insertEvents(
  tx: Tx,
  taskNo: string,
  taskId: string,
  events: readonly TaskEvent[],
  at: string,
): Promise<StoredEvent[]> {
  const bodies = events.map((event) => JSON.stringify(event));
  const seqs = events.map((_, i) => i + 1);
  await tx.client.query(tx.sql.insertEvents, [taskNo, at, seqs, bodies]);
  const inputIds = inputIdsOf(events);
  if (inputIds !== null) await tx.client.query(tx.sql.insertInputs, [taskNo, seqs, inputIds]);
  return storedEvents(bodies, taskId, 0, at);
}
