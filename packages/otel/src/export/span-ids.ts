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

function digest(text: string, length: number): string {
  return hash("sha256", text, "hex").slice(0, length);
}

function remembered(text: string, length: number): string {
  let value = memo.get(text);
  if (value === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    value = digest(text, length);
    memo.set(text, value);
  }
  return value;
}

function spanText(taskId: string, key: string): string {
  return `sema-span\u0000${taskId}\u0000${key}`;
}

// An exporter asks for the same trace id and the same one or two parents (the leg, the task)
// span after span: the last answers are kept, so most asks neither build nor hash a memo key
// (measured: building and looking up the key cost more than the SHA-256 of the ids it missed).
let lastTask: string | undefined;
let lastTrace = "";
const lastParents: { taskId: string; key: string; id: string }[] = [];

/** The trace id of a task: 32 hex digits from its id. */
export function traceIdOf(taskId: string): string {
  if (taskId !== lastTask) {
    lastTrace = remembered(`sema-trace\u0000${taskId}`, 32);
    lastTask = taskId;
  }
  return lastTrace;
}

/** The span id of one span of a task: 16 hex digits from the task id and the span's key. */
export function spanIdOf(taskId: string, key: string): string {
  for (const last of lastParents) if (last.key === key && last.taskId === taskId) return last.id;
  const id = remembered(spanText(taskId, key), 16);
  if (lastParents.length >= 2) lastParents.shift();
  lastParents.push({ taskId, key, id });
  return id;
}

/**
 * `spanIdOf` for a span's own id: asked once per span, so it is not remembered (a leaf would only
 * push the parents out of the memo), but one already remembered as a parent is not hashed again.
 */
export function leafSpanIdOf(taskId: string, key: string): string {
  const text = spanText(taskId, key);
  return memo.get(text) ?? digest(text, 16);
}
