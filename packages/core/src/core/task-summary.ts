/**
 * The task summary: the small part of a task's state that a store indexes (status, what it waits
 * for, whether a worker should pick it up). One pure reducer serves the stores, which apply it on
 * every append, and `fold`, which embeds it; so the index and the folded state can never disagree.
 */

import type { ParkReason, TaskEvent } from "../protocol/task-event.ts";
import {
  EVENT_SEQS_VERSION,
  type EventSeqs,
  type LogPosition,
  type TaskStatus,
  type TaskSummary,
} from "../protocol/task-summary.ts";
import type { Usage } from "../protocol/transcript.ts";
import { isResumeRequest } from "./command-events.ts";

/** The summary of an empty log, where `reduceSummary` and `summarize` start. */
export const EMPTY_SUMMARY: TaskSummary = Object.freeze({
  status: "created",
  openInputs: {},
  openApprovals: [],
  childResults: 0,
  sessionSeq: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  runnable: true,
  seqs: Object.freeze({ v: EVENT_SEQS_VERSION, approvals: Object.freeze({}), children: Object.freeze({}) }),
}) as TaskSummary;

/** Whether a task with this status has ended (`completed`, `failed` or `cancelled`). */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * Whether a child task has ended and its parent has not been told yet (see
 * `TaskSummary.parentReport`). Only while it stays ended: a child woken and running again reports
 * when it next ends.
 */
export function isEndReportDue(summary: TaskSummary): boolean {
  return summary.parentReport === "due" && isTerminal(summary.status);
}

/** When the earliest unfired timer is due (ms), if any. */
export function nextWakeAt(summary: TaskSummary): number | undefined {
  let next: number | undefined;
  for (const due of Object.values(summary.timers ?? {})) if (next === undefined || due < next) next = due;
  return next;
}

function hasInputs(summary: TaskSummary, carrier?: string): boolean {
  for (const key in summary.openInputs) {
    if (carrier === undefined || summary.openInputs[key] === carrier) return true;
  }
  return false;
}

/** Whether a worker should start a leg: pending work while no leg runs. */
function isRunnable(summary: TaskSummary): boolean {
  // A child's end not yet reported to its parent: a worker makes the report (no leg).
  if (isEndReportDue(summary)) return true;
  switch (summary.status) {
    case "created":
      return true;
    case "running":
    case "cancelled":
      return false;
    case "completed":
    case "failed":
      return hasInputs(summary, "wake");
    case "parked":
      // A resume request runs the next leg, unless approvals still wait for people.
      if (summary.resumeRequested === true && summary.openApprovals.length === 0) return true;
      switch (summary.parkedReason) {
        case "approval":
          return summary.openApprovals.length === 0;
        case "child":
          return summary.childResults > 0 || hasInputs(summary);
        case "crash":
        case "shutdown":
          return true;
        // Only the resume request recorded with the last external result (above) wakes it.
        case "tool":
          return false;
        default:
          return hasInputs(summary);
      }
  }
}

export function addUsage(total: Usage, turn: Usage): Usage {
  const sum: Usage = {
    inputTokens: total.inputTokens + turn.inputTokens,
    outputTokens: total.outputTokens + turn.outputTokens,
  };
  const cached = (total.cachedInputTokens ?? 0) + (turn.cachedInputTokens ?? 0);
  const reasoning = (total.reasoningTokens ?? 0) + (turn.reasoningTokens ?? 0);
  if (cached > 0) sum.cachedInputTokens = cached;
  if (reasoning > 0) sum.reasoningTokens = reasoning;
  return sum;
}

/**
 * A shallow copy without `keys`. A loop, not `const { a, ...rest } = s`: V8 runs object rest
 * with exclusions on a slow path, three times slower on a summary (measured 0.6 vs 2 µs).
 */
function omit<T extends object, K extends string>(source: T, ...keys: K[]): Omit<T, K> {
  const out: Record<string, unknown> = {};
  for (const key in source) if (!(keys as string[]).includes(key)) out[key] = source[key];
  return out as Omit<T, K>;
}

/**
 * The summary after one more event. Pure: returns a new object when anything changed. `at` (or a
 * stamped event's own `seq`) keeps `seqs` current; an event that would change them without it
 * drops them, so they are never wrong, only missing.
 */
export function reduceSummary(summary: TaskSummary, event: TaskEvent, at?: LogPosition): TaskSummary {
  let next = applyEvent(summary, event);
  const seqs = summary.seqs;
  // Most events (turns, tool calls, inputs) never move a seq: no work for them beyond this test.
  if (seqs !== undefined && MOVES_SEQS.has(event.type)) {
    const stamped = (event as { seq?: unknown }).seq;
    const seq = at?.seq ?? (typeof stamped === "number" ? stamped : undefined);
    const nextSeqs = applySeqs(seqs, event, seq);
    if (nextSeqs !== seqs) {
      if (next === summary) next = { ...summary };
      if (nextSeqs === undefined) delete next.seqs;
      else next.seqs = nextSeqs;
    }
  }
  if (next === summary) return summary;
  next.runnable = isRunnable(next);
  return next;
}

/** The summary after `events` appended after seq `afterSeq` (0 for a new task's first events). */
export function summarizeAfter(events: readonly TaskEvent[], from: TaskSummary, afterSeq: number): TaskSummary {
  let summary = from;
  for (let i = 0; i < events.length; i++)
    summary = reduceSummary(summary, events[i] as TaskEvent, { seq: afterSeq + i + 1 });
  return summary;
}

/** The event types `applySeqs` acts on. */
const MOVES_SEQS: ReadonlySet<TaskEvent["type"]> = new Set([
  "approval_requested",
  "approval_decided",
  "child_task",
  "task_completed",
  "task_failed",
  "task_cancelled",
]);

/** `seqs` after one more event: the same object when it does not change them. */
function applySeqs(seqs: EventSeqs, event: TaskEvent, seq: number | undefined): EventSeqs | undefined {
  // Keys are call and task ids, which a model or a caller may choose ("__proto__" included):
  // own-property tests and copies only, never `in` or assignment.
  switch (event.type) {
    case "approval_requested":
      if (Object.hasOwn(seqs.approvals, event.callId)) return seqs;
      return seq === undefined ? undefined : { ...seqs, approvals: { ...seqs.approvals, [event.callId]: seq } };
    case "approval_decided":
      if (!Object.hasOwn(seqs.approvals, event.callId)) return seqs;
      return {
        ...seqs,
        approvals: Object.fromEntries(Object.entries(seqs.approvals).filter(([id]) => id !== event.callId)),
      };
    case "child_task":
      if (event.phase !== "result" && Object.hasOwn(seqs.children, event.childTaskId)) return seqs;
      return seq === undefined ? undefined : { ...seqs, children: { ...seqs.children, [event.childTaskId]: seq } };
    case "task_completed":
    case "task_failed":
    case "task_cancelled":
      return seq === undefined ? undefined : { ...seqs, end: seq };
    default:
      return seqs;
  }
}

function applyEvent(s: TaskSummary, event: TaskEvent): TaskSummary {
  switch (event.type) {
    case "task_created":
      return event.parentTaskId === undefined ? s : { ...s, parentReport: "pending" };
    case "parent_notified":
      return s.parentReport === undefined ? s : omit(s, "parentReport");
    case "leg_started": {
      const rest = omit(s, "parkedReason", "parkedDetail", "resumeRequested");
      return { ...rest, status: "running", legId: event.legId, childResults: 0 };
    }
    case "leg_ended": {
      const rest = omit(s, "legId", "parkedReason", "parkedDetail");
      if (event.reason.startsWith("parked:")) {
        const parked: TaskSummary = {
          ...rest,
          status: "parked",
          parkedReason: event.reason.slice("parked:".length) as ParkReason,
        };
        if (event.detail !== undefined) parked.parkedDetail = event.detail;
        return parked;
      }
      // A leg that ended the task leaves the terminal status its task_* event already set.
      return { ...rest };
    }
    case "wake_scheduled": {
      const due = Date.parse(event.due);
      return { ...s, timers: { ...s.timers, [event.wakeId]: due } };
    }
    case "human_input": {
      // A timer fires as the wake input that carries its id.
      if (s.timers !== undefined && event.inputId in s.timers) s = { ...s, timers: omit(s.timers, event.inputId) };
      if (event.delivery === "received" || event.delivery === "parked") {
        if (s.openInputs[event.inputId] === event.carrier) return s;
        return { ...s, openInputs: { ...s.openInputs, [event.inputId]: event.carrier } };
      }
      if (!(event.inputId in s.openInputs)) return s;
      return { ...s, openInputs: omit(s.openInputs, event.inputId) };
    }
    case "model_turn":
      return { ...s, sessionSeq: event.sessionSeq, usage: addUsage(s.usage, event.usage) };
    case "approval_requested":
      return s.openApprovals.includes(event.callId) ? s : { ...s, openApprovals: [...s.openApprovals, event.callId] };
    case "approval_decided":
      return { ...s, openApprovals: s.openApprovals.filter((callId) => callId !== event.callId) };
    case "child_task": {
      if (event.phase !== "result") return s;
      const next: TaskSummary = { ...s, childResults: s.childResults + 1 };
      if (event.usage !== undefined)
        next.childUsage = addUsage(s.childUsage ?? { inputTokens: 0, outputTokens: 0 }, event.usage);
      return next;
    }
    case "resume_requested":
    case "engine_note":
      return isResumeRequest(event) && s.status === "parked" ? { ...s, resumeRequested: true } : s;
    case "task_completed":
      return { ...s, status: "completed", ...reportDue(s) };
    case "task_failed":
      return { ...s, status: "failed", ...reportDue(s) };
    case "task_cancelled":
      return { ...s, status: "cancelled", ...reportDue(s) };
    default:
      return s;
  }
}

/** A child's end makes its report to the parent due, unless one was made (the parent takes one result). */
function reportDue(s: TaskSummary): { parentReport?: "due" } {
  return s.parentReport === "pending" ? { parentReport: "due" } : {};
}

/** The summary of a whole sequence of events (stamped ones keep `seqs`; see {@link reduceSummary}). */
export function summarize(events: Iterable<TaskEvent>, from: TaskSummary = EMPTY_SUMMARY): TaskSummary {
  let summary = from;
  for (const event of events) summary = reduceSummary(summary, event);
  return summary;
}
