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
  type TaskScore,
  type TaskStatus,
  type TaskSummary,
} from "../protocol/task-summary.ts";
import type { Usage } from "../protocol/usage.ts";
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

/** A record without `key` (a loop: object rest with exclusions runs on V8's slow path). */
function without<V>(source: Record<string, V>, key: string): Record<string, V> {
  const out: Record<string, V> = {};
  for (const k in source) if (k !== key) out[k] = source[k] as V;
  return out;
}

/** Optional fields that {@link copy} leaves out. */
const DROP_PARK = 1;
const DROP_RESUME = 2;
const DROP_LEG = 4;
const DROP_REPORT = 8;
const DROP_SEQS = 16;

/**
 * A fresh summary to change, built key by key in one order. Object spread over summaries of many
 * shapes (new, reduced, parsed from a store) turns megamorphic and falls back to the runtime: at
 * 10,000 live tasks that cost 1.7 µs a reduction, ten times this.
 */
function copy(s: TaskSummary, drop = 0): TaskSummary {
  const out: TaskSummary = {
    status: s.status,
    openInputs: s.openInputs,
    openApprovals: s.openApprovals,
    childResults: s.childResults,
    sessionSeq: s.sessionSeq,
    usage: s.usage,
    runnable: s.runnable,
  };
  if ((drop & DROP_PARK) === 0) {
    if (s.parkedReason !== undefined) out.parkedReason = s.parkedReason;
    if (s.parkedDetail !== undefined) out.parkedDetail = s.parkedDetail;
  }
  if ((drop & DROP_RESUME) === 0 && s.resumeRequested !== undefined) out.resumeRequested = s.resumeRequested;
  if ((drop & DROP_LEG) === 0 && s.legId !== undefined) out.legId = s.legId;
  if (s.timers !== undefined) out.timers = s.timers;
  if (s.childUsage !== undefined) out.childUsage = s.childUsage;
  if ((drop & DROP_REPORT) === 0 && s.parentReport !== undefined) out.parentReport = s.parentReport;
  if ((drop & DROP_SEQS) === 0 && s.seqs !== undefined) out.seqs = s.seqs;
  if (s.forkedFrom !== undefined) out.forkedFrom = s.forkedFrom;
  if (s.scores !== undefined) out.scores = s.scores;
  return out;
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
      if (nextSeqs === undefined) next = copy(next, DROP_SEQS);
      else {
        if (next === summary) next = copy(summary);
        next.seqs = nextSeqs;
      }
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
    case "task_created": {
      if (event.parentTaskId === undefined) return s;
      const next = copy(s);
      next.parentReport = "pending";
      return next;
    }
    case "parent_notified":
      return s.parentReport === undefined ? s : copy(s, DROP_REPORT);
    case "leg_started": {
      const next = copy(s, DROP_PARK | DROP_RESUME);
      next.status = "running";
      next.legId = event.legId;
      next.childResults = 0;
      return next;
    }
    case "leg_ended": {
      const next = copy(s, DROP_LEG | DROP_PARK);
      // A leg that ended the task leaves the terminal status its task_* event already set.
      if (event.reason.startsWith("parked:")) {
        next.status = "parked";
        next.parkedReason = event.reason.slice("parked:".length) as ParkReason;
        if (event.detail !== undefined) next.parkedDetail = event.detail;
      }
      return next;
    }
    case "wake_scheduled": {
      const next = copy(s);
      next.timers = { ...s.timers, [event.wakeId]: Date.parse(event.due) };
      return next;
    }
    case "human_input": {
      let next = s;
      // A timer fires as the wake input that carries its id.
      if (s.timers !== undefined && event.inputId in s.timers) {
        next = copy(s);
        next.timers = without(s.timers, event.inputId);
      }
      if (event.delivery === "received" || event.delivery === "parked") {
        if (s.openInputs[event.inputId] === event.carrier) return next;
        if (next === s) next = copy(s);
        next.openInputs = { ...s.openInputs, [event.inputId]: event.carrier };
        return next;
      }
      if (!(event.inputId in s.openInputs)) return next;
      if (next === s) next = copy(s);
      next.openInputs = without(s.openInputs, event.inputId);
      return next;
    }
    case "model_turn": {
      const next = copy(s);
      next.sessionSeq = event.sessionSeq;
      next.usage = addUsage(s.usage, event.usage);
      return next;
    }
    case "tool_result": {
      // A tool's own model calls (a quarantined reader's) count like a turn's, as no turn.
      if (event.usage === undefined) return s;
      const next = copy(s);
      next.usage = addUsage(s.usage, event.usage);
      return next;
    }
    case "approval_requested": {
      if (s.openApprovals.includes(event.callId)) return s;
      const next = copy(s);
      next.openApprovals = [...s.openApprovals, event.callId];
      return next;
    }
    case "approval_decided": {
      const next = copy(s);
      next.openApprovals = s.openApprovals.filter((callId) => callId !== event.callId);
      return next;
    }
    case "child_task": {
      if (event.phase !== "result") return s;
      const next = copy(s);
      next.childResults = s.childResults + 1;
      if (event.usage !== undefined)
        next.childUsage = addUsage(s.childUsage ?? { inputTokens: 0, outputTokens: 0 }, event.usage);
      return next;
    }
    case "resume_requested":
    case "engine_note": {
      if (!isResumeRequest(event) || s.status !== "parked") return s;
      const next = copy(s);
      next.resumeRequested = true;
      return next;
    }
    case "task_completed":
    case "task_failed":
    case "task_cancelled": {
      const next = copy(s);
      next.status =
        event.type === "task_completed" ? "completed" : event.type === "task_failed" ? "failed" : "cancelled";
      // A child's end makes its report to the parent due, unless one was made (the parent takes one result).
      if (s.parentReport === "pending") next.parentReport = "due";
      return next;
    }
    case "task_forked":
      return forked(s, event);
    case "task_scored": {
      const next = copy(s);
      const score: TaskScore = { value: event.value };
      if (event.reason !== undefined) score.reason = event.reason;
      if (event.experiment !== undefined) score.experiment = event.experiment;
      next.scores = { ...s.scores, [event.scorer]: score };
      return next;
    }
    default:
      return s;
  }
}

/**
 * A fork's summary after its `task_forked`: the copy's open leg is closed (parked on its pending
 * approvals, those it reopens included, else `forked`), a task not yet started parks too (a fork never runs on its own), and
 * one that waited for children waits no more (they report to the source). The source is recorded.
 */
function forked(s: TaskSummary, event: Extract<TaskEvent, { type: "task_forked" }>): TaskSummary {
  const next = copy(s, DROP_REPORT | DROP_RESUME);
  next.forkedFrom = { taskId: event.source.taskId, seq: event.source.seq, origin: event.origin };
  const reopened = (event.reopenedApprovals ?? []).filter((callId) => !s.openApprovals.includes(callId));
  if (reopened.length > 0) next.openApprovals = [...s.openApprovals, ...reopened];
  if (s.status === "running" || s.status === "created") {
    delete next.legId;
    delete next.parkedDetail;
    next.status = "parked";
    next.parkedReason = next.openApprovals.length > 0 ? "approval" : "forked";
  } else if (s.status === "parked" && reopened.length > 0) {
    delete next.parkedDetail;
    next.parkedReason = "approval";
  } else if (s.status === "parked" && s.parkedReason === "child" && event.detachedChildren !== undefined) {
    delete next.parkedDetail;
    next.parkedReason = "forked";
  }
  return next;
}

/** The summary of a whole sequence of events (stamped ones keep `seqs`; see {@link reduceSummary}). */
export function summarize(events: Iterable<TaskEvent>, from: TaskSummary = EMPTY_SUMMARY): TaskSummary {
  let summary = from;
  for (const event of events) summary = reduceSummary(summary, event);
  return summary;
}
