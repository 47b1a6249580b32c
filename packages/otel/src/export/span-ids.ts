/**
 * Span and trace ids derived from the task, not drawn at random: the same task gives the same
 * trace id on every worker and in every rebuild, and a span's id follows from its key. So a leg
 * exported live by one process and the task's root exported by another land in one trace, and a
 * rebuilt trace re-exported to a backend names the same spans as the live one.
 */
import { hash } from "node:crypto";

// Every span of a turn names its trace and its parent (a leg or the task) again: remembered,
// those are not hashed again. Cleared when it grows, so a long-lived host's memory stays bounded.
const memo = new Map<string, string>();
const MEMO_LIMIT = 10_000;

function hex(text: string, length: number): string {
  let value = memo.get(text);
  if (value === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    value = hash("sha256", text, "hex").slice(0, length);
    memo.set(text, value);
  }
  return value;
}

/** The trace id of a task: 32 hex digits from its id. */
export function traceIdOf(taskId: string): string {
  return hex(`sema-trace\u0000${taskId}`, 32);
}

/** The span id of one span of a task: 16 hex digits from the task id and the span's key. */
export function spanIdOf(taskId: string, key: string): string {
  return hex(`sema-span\u0000${taskId}\u0000${key}`, 16);
}
