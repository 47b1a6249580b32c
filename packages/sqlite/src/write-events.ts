/** Writing events into the log inside an append's (or a create's) transaction. */
import type { SQLInputValue } from "node:sqlite";
import {
  jsonCopy,
  reduceSummary,
  type StoredEvent,
  stampEvent,
  type TaskEvent,
  type TaskSummary,
} from "@sema-agent/core";
import { INSERT_CHUNK, type Statements } from "./statements.ts";

/** The task being written to, as the transaction read it. */
export interface TaskPosition {
  taskNo: number;
  taskId: string;
  lastSeq: number;
  summary: TaskSummary;
}

/**
 * The stored form of an event the caller handed in: `stampEvent`'s shallow copy, with every
 * nested object copied too, so the caller's later changes to its objects cannot reach it. The
 * event was validated as JSON, so this equals what `read` parses back, key order included, at a
 * fifth of the cost of parsing the written JSON again (measured: 20 µs vs 93 µs per 100 events).
 */
function storedCopy(event: TaskEvent, taskId: string, seq: number, at: string): StoredEvent {
  const stored = stampEvent(event, taskId, seq, at);
  const fields = stored as unknown as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "object" && value !== null) fields[key] = jsonCopy(value);
  }
  return stored;
}

/**
 * Insert `events` after `task.lastSeq`, all stamped `at`. Returns the stored events (equal to
 * what `read` returns, sharing nothing with the caller's objects) and the task summary after them.
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
    // Only the first stage of an input is kept (the key ignores later ones).
    if (event.type === "human_input") sql.insertInput.run(task.taskNo, event.inputId, task.lastSeq + i + 1);
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
  for (let i = 0; i < count; i++) stored[i] = storedCopy(events[i] as TaskEvent, task.taskId, task.lastSeq + i + 1, at);
  return { stored, summary };
}
