/**
 * People first (design §7, "People first"): work a person waits for — a steer, an interrupt, a cancel,
 * an approval decision, the first step of a new task — rides the `person` lane, ahead of routine
 * leg work, wherever work queues: a store's batch of writes, and the claims of workers. The lane
 * is derived from the log (the events a write carries, the summary a claim reads), never a flag
 * kept beside it, so any process, after any restart, derives the same one.
 */

import type { TaskEvent } from "../protocol/task-event.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";
import { isInterruptRequest, isResumeRequest } from "./command-events.ts";

/** Which lane a piece of work rides: `person` (someone waits for it) goes ahead of `routine`. */
export type WorkLane = "person" | "routine";

/** The carrier of inputs that time or the engine sends (timers, wakes): routine, not a person's. */
const WAKE_CARRIER = "wake";

/** The carrier of a new task's objective: a person's, but a new task's first step, not a word to a running one. */
const OBJECTIVE_CARRIER = "objective";

/**
 * Whether `event` is a person's: an input a person sent (or its delivery), an interrupt, a
 * cancel, an approval decision, a resume request. A timer's wake and the engine's own inputs
 * (`source: "system"`) are not.
 */
export function isPersonEvent(event: TaskEvent): boolean {
  switch (event.type) {
    case "human_input":
      return event.carrier !== WAKE_CARRIER && event.source !== "system";
    case "interrupt_requested":
    case "task_cancelled":
    case "approval_decided":
    case "resume_requested":
      return true;
    case "engine_note":
      return isInterruptRequest(event) || isResumeRequest(event);
    default:
      return false;
  }
}

/** The lane of a write carrying `events`: `person` when any of them is a person's. */
export function laneOfEvents(events: readonly TaskEvent[]): WorkLane {
  for (const event of events) if (isPersonEvent(event)) return "person";
  return "routine";
}

/**
 * Where a write waits in a store's queue of writes: `attended` when it carries a person's own
 * event (`isPersonEvent`: their input, interrupt, cancel, decision or resume, or a leg applying
 * one), which a person is waiting on right now; `person` at least when it carries a new task's
 * objective (created, or delivered by the task's first leg); else the lane its writer gave
 * (`attended` for a leg's appends between a person's word arriving and the model request that
 * carries it, `person` for a new task's first step, `routine` by default). A store runs
 * `attended` writes before both other lanes: they are rare (a person's pace) and each is what the
 * person waits for, so a burst of new tasks' first steps (ten thousand objectives at once) cannot
 * hold them up.
 */
export type WriteLane = "attended" | WorkLane;

/** The `WriteLane` of a write carrying `events`, given the lane its writer asked for (see there). */
export function writeLaneOf(events: readonly TaskEvent[], lane: WriteLane | undefined): WriteLane {
  let objective = false;
  for (const event of events) {
    if (!isPersonEvent(event)) continue;
    if (event.type !== "human_input" || event.carrier !== OBJECTIVE_CARRIER) return "attended";
    objective = true;
  }
  return objective && lane !== "attended" ? "person" : (lane ?? "routine");
}

/**
 * The lane of a task's next leg, from its summary: `person` when what makes it runnable is a
 * person's — a new task's first step, an input a person sent, a decided approval, a resume
 * request; `routine` for recovery (a crash, a shutdown), timers, children's results and reports.
 */
export function laneOfSummary(summary: TaskSummary): WorkLane {
  if (summary.status === "created" || summary.resumeRequested === true) return "person";
  if (summary.status === "parked" && summary.parkedReason === "approval" && summary.openApprovals.length === 0)
    return "person";
  for (const key in summary.openInputs) if (summary.openInputs[key] !== WAKE_CARRIER) return "person";
  return "routine";
}

/** A lane as a sort key: `person` (0) before `routine` (1). */
export function laneRank(lane: WorkLane): 0 | 1 {
  return lane === "person" ? 0 : 1;
}

/**
 * How long a `person` task's head start is in the runnable order, ms: a task a person waits for is
 * listed (and claimed) as if it had become runnable this much earlier. So it passes every routine
 * task that became runnable less than a minute before it, and no routine task is ever passed by a
 * person's that became runnable more than a minute after it: a stream of people's work delays
 * routine work by at most this, never starves it.
 */
export const PERSON_HEAD_START_MS = 60_000;

/**
 * The runnable order's key of a task (ms; lower is claimed first): its last activity, less
 * {@link PERSON_HEAD_START_MS} when its summary's lane is `person`.
 */
export function claimOrderKey(updatedAt: string, summary: TaskSummary): number {
  const at = Date.parse(updatedAt);
  return laneOfSummary(summary) === "person" ? at - PERSON_HEAD_START_MS : at;
}
