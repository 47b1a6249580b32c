/** Writing events into the log inside an append's (or a create's) transaction. */
import type { SQLInputValue } from "node:sqlite";
import { reduceSummary, type StoredEvent, type TaskEvent, type TaskSummary } from "@sema-agent/core";
import { eventOf } from "./rows.ts";
import { INSERT_CHUNK, type Statements } from "./statements.ts";

/** The task being written to, as the transaction read it. */
export interface TaskPosition {
  taskNo: number;
  taskId: string;
  lastSeq: number;
  summary: TaskSummary;
}

/**
 * Insert `events` after `task.lastSeq`, all stamped `at`. Returns the stored events (parsed back
 * from what was written, so they equal what `read` returns and share nothing with the caller's
 * objects) and the task summary after them.
 */
export function writeEvents(
  sql: Statements,
  task: TaskPosition,
  events: readonly TaskEvent[],
  at: string,
): { stored: StoredEvent[]; summary: TaskSummary } {
  const count = events.length;
  const bodies: string[] = new Array(count);
  let summary = task.summary;
  for (let i = 0; i < count; i++) {
    const event = events[i] as TaskEvent;
    bodies[i] = JSON.stringify(event);
    summary = reduceSummary(summary, event);
  }
  for (let start = 0; start < count; start += INSERT_CHUNK) {
    const rows = Math.min(INSERT_CHUNK, count - start);
    const params: SQLInputValue[] = new Array(rows * 4);
    for (let row = 0; row < rows; row++) {
      params[row * 4] = task.taskNo;
      params[row * 4 + 1] = task.lastSeq + start + row + 1;
      params[row * 4 + 2] = at;
      params[row * 4 + 3] = bodies[start + row] as string;
    }
    sql.insertEvents(rows).run(...params);
  }
  const stored: StoredEvent[] = new Array(count);
  for (let i = 0; i < count; i++) stored[i] = eventOf(task.taskId, task.lastSeq + i + 1, at, bodies[i] as string);
  return { stored, summary };
}
