/** The rules of `Store.stats`, the same in every store: the options checked, and the shape filled. */

import type { PrincipalSize, StoreStatsOptions, TaskSize } from "../ports/store.ts";
import { type TaskStatus, taskStatusSchema } from "../protocol/task-summary.ts";
import { assertLimit } from "./store-rules.ts";

/** A `stats` call's options, checked: whose tasks, how many largest, whether to count events. */
export interface StatsRequest {
  principal?: string;
  largest: number;
  events: boolean;
}

/** The checked form of `options` (`InvalidInput` for a bad `largest`). */
export function statsRequest(options: StoreStatsOptions = {}): StatsRequest {
  const largest = options.largest === 0 ? 0 : assertLimit(options.largest, 10, 1000);
  const request: StatsRequest = { largest, events: options.events ?? true };
  if (options.principal !== undefined) request.principal = options.principal;
  return request;
}

/** Every status at 0. */
export function emptyTaskCounts(): Record<TaskStatus, number> {
  return Object.fromEntries(taskStatusSchema.options.map((status) => [status, 0])) as Record<TaskStatus, number>;
}

/** Each task's size folded into per-principal shares, most log bytes first (principal order among equals). */
export function principalSizes(
  tasks: Iterable<{ principal: string; events: number; logBytes: number }>,
): PrincipalSize[] {
  const shares = new Map<string, PrincipalSize>();
  for (const task of tasks) {
    const share = shares.get(task.principal) ?? { principal: task.principal, tasks: 0, events: 0, logBytes: 0 };
    share.tasks++;
    share.events += task.events;
    share.logBytes += task.logBytes;
    shares.set(task.principal, share);
  }
  return [...shares.values()].sort(
    (a, b) => b.logBytes - a.logBytes || (a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : 0),
  );
}

/** The `count` largest tasks by log bytes, largest first (task id order among equals). */
export function largestTasks(tasks: Iterable<TaskSize>, count: number): TaskSize[] {
  return [...tasks]
    .sort((a, b) => b.logBytes - a.logBytes || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0))
    .slice(0, count);
}

/** Bytes of a string as UTF-8, as a database counts its text. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
