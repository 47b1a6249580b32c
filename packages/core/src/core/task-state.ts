/**
 * The task's state, what `fold` builds from the log (design §4), with its schema version and the
 * queries derived from it (the budget the running children hold, whether a call is external).
 */

import type { Attachment } from "../protocol/content.ts";
import type { HumanInputPolicy, HumanInputSource } from "../protocol/human-input.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { CallProvenance } from "../protocol/provenance.ts";
import type { BudgetReservation, ExternalTool, TaskSettings } from "../protocol/task-event.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";
import type { ActorAssertion, ToolCall, TranscriptEntry } from "../protocol/transcript.ts";
import type { ApplyingInput, EntryProvenance } from "./entry-provenance.ts";
import { EMPTY_SUMMARY } from "./task-summary.ts";

/**
 * Schema version of {@link TaskState}, stored with snapshots. 2: `settings` and
 * `outputCorrections`; 3: `summary.parentReport` and `externalTools`; 4: `inputProvenance`,
 * `applying` and `approvals[].provenance`; 5: the budget ledger (a child's `reserved`, `turns` and
 * `held`; `reportedEnd`). A snapshot of another
 * version is ignored and the log refolded, so a reader never builds a request from a state that
 * lacks what the log holds.
 */
export const TASK_STATE_VERSION = 5;

/** An input that was received or parked and is neither applied nor dropped yet. */
export interface PendingInput {
  inputId: string;
  carrier: string;
  source: HumanInputSource;
  /** `parked`: it arrived while no leg ran, and waits for the next one. */
  delivery: "received" | "parked";
  text: string;
  /** Its images and files (stored references), delivered after its text. */
  attachments?: Attachment[];
  actor?: ActorAssertion;
  policy?: HumanInputPolicy;
  /** The leg the sender meant it for. */
  legId?: string;
  /** Seq of the event that recorded it (0 when folding unstamped events). */
  seq: number;
}

/** A tool call the model asked for that has no result yet. `started` ⇒ in doubt after a crash. */
export interface OpenToolCall extends ToolCall {
  started: boolean;
  attempt: number;
  legId?: string;
  /** The last `tool_checkpoint` the call recorded: what a re-run after a crash resumes from. */
  checkpoint?: JsonValue;
}

/**
 * One requested approval in the folded state: the call, its canonical input and digest, and the
 * decision once recorded.
 */
export interface ApprovalState {
  callId: string;
  name: string;
  inputJson: string;
  digest: string;
  decision?: "approve" | "deny";
  reason?: string;
  actor?: ActorAssertion;
  /** Why the provenance policy held the call (`approval_requested` v 2), when it did. */
  provenance?: CallProvenance;
}

/** A durable timer not yet fired. */
export interface TimerState {
  wakeId: string;
  due: string;
  text: string;
  source: "system" | "external";
  from?: string;
}

/**
 * A child task as its parent's log knows it. `reserved` is its share of the parent's budget, held
 * against the parent's limits while it runs (see `outstandingReservations`); its result releases it.
 */
export interface ChildState {
  childTaskId: string;
  callId?: string;
  status: "running" | "completed" | "failed" | "cancelled";
  result?: string;
  /** What the parent set aside for it when it spawned it (`child_task` v 2). */
  reserved?: BudgetReservation;
  /** Model turns of its tree, from its result (only for a tree-wide `maxTurns`). */
  turns?: number;
  /** What its own children still held when it ended: held for good, as the parent hears no more. */
  held?: BudgetReservation;
  /**
   * Its context held untrusted text (`child_task` v 3): the seqs in its own log of the events
   * that held it. Its answer is untrusted to the parent.
   */
  untrusted?: number[];
}

/**
 * Everything the harness knows about a task, folded from its log (`fold`): the transcript the
 * model sees, pending inputs, open tool calls, approvals, children, timers, the summary and the
 * outcome. Serialized into snapshots (`stateToJson`), versioned by `v`.
 */
export interface TaskState {
  v: typeof TASK_STATE_VERSION;
  /** Seq of the last event folded (0 for an empty log). */
  lastSeq: number;
  objective: string;
  principal: string;
  agent?: string;
  model?: string;
  parentTaskId?: string;
  /** The metadata the task was created with (delegation records its depth there). */
  metadata?: { [key: string]: JsonValue };
  /** The model settings the task was started with (`task_created` v 2); they win over the agent's. */
  settings?: TaskSettings;
  /**
   * Corrections sent since the task last ended because the final answer failed the output schema
   * (bounded by the agent's `outputAttempts`).
   */
  outputCorrections?: number;
  /** Status, what it waits for, open leg, usage, sessionSeq: the same summary the store indexes. */
  summary: TaskSummary;
  /** What the model sees, system instructions aside; every string is the exact bytes. */
  transcript: TranscriptEntry[];
  /** Seq of the event each transcript entry came from (parallel to `transcript`), for compaction. */
  transcriptSeqs: number[];
  /**
   * Where the bytes of each user entry that applies inputs came from, by `entryId`: a span per
   * input with its lane and speaker (and a compaction summary's, whether it replaced untrusted
   * text). Every other entry's provenance follows from the entry itself (`provenanceAt`): a tool
   * result's from its tool and its fence. docs/guide/security.md.
   */
  inputProvenance?: { [entryId: string]: EntryProvenance };
  /** Inputs whose `applied` frame is folded and whose entry is not yet (the two share an append). */
  applying?: ApplyingInput[];
  /** Inputs waiting for a carrier, in arrival order. */
  inputs: PendingInput[];
  openToolCalls: OpenToolCall[];
  /** Requested approvals whose call has no result yet, decided or not. */
  approvals: ApprovalState[];
  /** Tools approved for the rest of the task ("always allow"), by recorded decision. */
  grantedTools: string[];
  /** The external tools offered last (`external_tools`): their calls wait for a result from outside. */
  externalTools?: ExternalTool[];
  children: ChildState[];
  /** Durable timers not yet fired, earliest first. */
  timers: TimerState[];
  result?: string;
  error?: { code: string; message: string };
  /** Legs started so far. */
  legs: number;
  /** The prompt size of the last model turn, as the provider reported it (cleared by a compaction). */
  lastPromptTokens?: number;
  /** Milliseconds spent in legs that have ended (from their stored times). */
  activeMs: number;
  /** When the open leg started (ISO-8601), while one is open. */
  legStartedAt?: string;
  /**
   * The task told its parent it ended (`parent_notified`): the parent took its spend and released
   * its share, so a carved budget has nothing left for a leg that runs after that (a wake).
   */
  reportedEnd?: true;
  /**
   * Legs in a row that parked because the model was unavailable (`parked:model`) with no model
   * turn since: what the park's backoff grows with. Absent means 0 (and in older snapshots).
   */
  modelParks?: number;
}

/** The state of an empty log, where a fold starts. */
export const EMPTY_STATE: TaskState = Object.freeze({
  v: TASK_STATE_VERSION,
  lastSeq: 0,
  objective: "",
  principal: "",
  summary: EMPTY_SUMMARY,
  transcript: [],
  transcriptSeqs: [],
  inputs: [],
  openToolCalls: [],
  approvals: [],
  grantedTools: [],
  children: [],
  timers: [],
  legs: 0,
  activeMs: 0,
}) as TaskState;

/**
 * The budget the task's running children hold (design §6, the ledger): the sum of the shares
 * recorded on their spawns, each released by the child's result — less what that child's own
 * children still held then, which stays held. A cancelled task holds nothing: it will spend no
 * more, and its children are cancelled with it.
 */
export function outstandingReservations(state: TaskState): Required<BudgetReservation> {
  const out = { tokens: 0, costUsd: 0, activeMs: 0, turns: 0 };
  if (state.summary.status === "cancelled") return out;
  for (const child of state.children) {
    const held = child.status === "running" ? child.reserved : child.held;
    if (held === undefined) continue;
    out.tokens += held.tokens ?? 0;
    out.costUsd += held.costUsd ?? 0;
    out.activeMs += held.activeMs ?? 0;
    out.turns += held.turns ?? 0;
  }
  return out;
}

/** Whether a call is to one of the task's external tools (its result comes from outside). */
export function isExternalCall(state: TaskState, call: { name: string }): boolean {
  return state.externalTools?.some((tool) => tool.name === call.name) === true;
}
