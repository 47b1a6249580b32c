/**
 * The rules of `Store.restoreTask`, the same in every store: a log copied from another store is
 * written exactly as it was stored (ids, seqs, `at` stamps and bodies), so it is checked first.
 */

import { validateEvents } from "../core/event-validation.ts";
import { EMPTY_SUMMARY, summarizeAfter } from "../core/task-summary.ts";
import { InvalidInputError } from "../protocol/errors.ts";
import type { StoredEvent, TaskCreatedEvent, TaskEvent } from "../protocol/task-event.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";

/** A stored log, checked, split into what a store writes: the task's identity, times, bodies and summary. */
export interface RestoredLog {
  taskId: string;
  created: TaskCreatedEvent;
  /** The first event's `at`. */
  createdAt: string;
  /** The last event's `at`. */
  updatedAt: string;
  /** Each event's own keys (without `taskId`, `seq`, `at`), in order. */
  bodies: TaskEvent[];
  /** Each event's `at`, in order. */
  ats: string[];
  summary: TaskSummary;
}

/**
 * Check a stored log for `restoreTask` (`InvalidInput` or `InvalidEvent`, naming what is wrong):
 * one task's events, seqs 1 … n without a gap, a `task_created` first, every body valid.
 */
export function restoredLog(events: readonly StoredEvent[]): RestoredLog {
  const first = events[0];
  if (first === undefined) throw new InvalidInputError("a restored log has at least its task_created");
  if (first.type !== "task_created") throw new InvalidInputError("a restored log starts with task_created");
  const bodies: TaskEvent[] = [];
  const ats: string[] = [];
  events.forEach((event, i) => {
    const { taskId, seq, at, ...body } = event;
    if (taskId !== first.taskId) throw new InvalidInputError(`event ${i + 1} of a restored log is another task's`);
    if (seq !== i + 1)
      throw new InvalidInputError(`a restored log's seqs run from 1 without a gap; got ${seq} at ${i + 1}`);
    if (typeof at !== "string" || Number.isNaN(Date.parse(at)))
      throw new InvalidInputError(`event ${seq} of a restored log has no time`);
    bodies.push(body as TaskEvent);
    ats.push(at);
  });
  validateEvents(bodies);
  const { taskId, seq: _seq, at: _at, ...created } = first;
  return {
    taskId,
    created: created as TaskCreatedEvent,
    createdAt: first.at,
    updatedAt: ats[ats.length - 1] ?? first.at,
    bodies,
    ats,
    summary: summarizeAfter(bodies, EMPTY_SUMMARY, 0),
  };
}
