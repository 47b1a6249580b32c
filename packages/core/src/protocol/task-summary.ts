/**
 * The task summary's shape: the small part of a task's state that a store indexes. The reducer
 * that computes it lives in core (`core/task-summary.ts`); the shape lives here so that the store
 * port can name it without depending on core.
 */

import { z } from "zod";
import type { ParkReason } from "./task-event.ts";
import type { Usage } from "./usage.ts";

/** Where a task stands: created, running a leg, parked, or ended (completed, failed, cancelled). */
export const taskStatusSchema = z.enum(["created", "running", "parked", "completed", "failed", "cancelled"]);
/** Where a task stands (see {@link taskStatusSchema}). */
export type TaskStatus = z.infer<typeof taskStatusSchema>;

/**
 * The small, indexed part of a task's state that a store keeps beside the log, updated on every
 * append: what lists, schedulers and status reads use without folding the log.
 */
export interface TaskSummary {
  status: TaskStatus;
  /** What a parked task waits for. */
  parkedReason?: ParkReason;
  /** More about the park, from its `leg_ended` (for a budget: which limit). */
  parkedDetail?: string;
  /** Someone asked for the parked task's next leg (any host may run it). */
  resumeRequested?: true;
  /** The open leg (started, not ended). */
  legId?: string;
  /** Inputs received or parked and neither applied nor dropped: inputId → carrier. */
  openInputs: Record<string, string>;
  /** Durable timers not yet fired: wakeId → due time in ms since the epoch. */
  timers?: Record<string, number>;
  /** Approvals requested and not yet decided (callIds). */
  openApprovals: string[];
  /** Child results that arrived since the task last parked. */
  childResults: number;
  /** What finished children used (their own usage plus their children's). */
  childUsage?: Usage;
  /** Model turns taken in the whole session. */
  sessionSeq: number;
  usage: Usage;
  /**
   * For a child task, whether its parent has been told how it ended: `pending` while it has not
   * ended, `due` once it has and the report (a `child_task` result in the parent's log, then
   * `parent_notified` in its own) is not yet done, which makes it runnable while it stays ended;
   * absent for a root task and once reported.
   */
  parentReport?: "pending" | "due";
  /** The task this one is a fork or an import of, and the seq its copy ends at (`task_forked`). */
  forkedFrom?: ForkOrigin;
  /** Each scorer's latest verdict on the task (`task_scored`), by scorer name. */
  scores?: Record<string, TaskScore>;
  /** Set while a parked or finished task has pending work a worker should start a leg for. */
  runnable: boolean;
  /**
   * Where a status read finds what the summary does not hold, so it reads those few events
   * instead of folding the log. Absent from summaries stored before it existed, and dropped by a
   * reduction that was not told the event's seq: a reader then folds the log instead.
   */
  seqs?: EventSeqs;
}

/** A scorer's latest verdict on a task, as its summary keeps it. */
export interface TaskScore {
  /** In [0, 1]. */
  value: number;
  reason?: string;
  /** The experiment whose case the task is; absent for an online score. */
  experiment?: string;
}

/** Where a forked or imported task's log came from: the source task and the last seq copied. */
export interface ForkOrigin {
  taskId: string;
  seq: number;
  /** `import` when the copy came from an export file (the task as it was exported). */
  origin: "fork" | "import";
}

/** Seqs of the single events that complete a task's status (see `TaskSummary.seqs`). */
export interface EventSeqs {
  /** Schema version; a reader that does not know it folds the log instead. */
  v: typeof EVENT_SEQS_VERSION;
  /** The latest `task_completed`, `task_failed` or `task_cancelled`. */
  end?: number;
  /** Each open approval (as `openApprovals`): callId → seq of its `approval_requested`. */
  approvals: Record<string, number>;
  /** Each child: childTaskId → seq of its latest `result` phase, else of its first `child_task`. */
  children: Record<string, number>;
}

/** Schema version of {@link EventSeqs}. */
export const EVENT_SEQS_VERSION = 1;

/** Where an event sits in its log, for `reduceSummary` (on `@sema-agent/core/store-kit`). */
export interface LogPosition {
  seq: number;
}
