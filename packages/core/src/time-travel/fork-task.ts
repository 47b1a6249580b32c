/**
 * `forkTask`: a new task whose log is the source's up to a step boundary, then a `task_forked`
 * naming the source, then the edits (docs/guide/time-travel.md). One `createTask`: the fork is
 * written whole or not at all, and the source's log is only read.
 */
import { buildHumanInputEvent } from "../core/human-input-projection.ts";
import type { TaskState } from "../core/task-state.ts";
import { newId } from "../internal/ids.ts";
import type { Store } from "../ports/store.ts";
import { InvalidInputError, TaskNotFoundError } from "../protocol/errors.ts";
import type { JsonValue } from "../protocol/json.ts";
import { type ModelSettings, modelSettingsSchema } from "../protocol/model-settings.ts";
import type { StoredEvent, TaskEvent, TaskForkedEvent } from "../protocol/task-event.ts";
import type { ActorAssertion } from "../protocol/transcript.ts";
import { cutAt, foldThrough } from "./fork-cut.ts";
import { unspentDecisions } from "./unspent-decisions.ts";
import { unstamped } from "./unstamped.ts";

/** "What if the tool had returned this": the result a fork gives a call instead of the recorded one. */
export interface ReplacedToolResult {
  /** The call whose recorded result is replaced; the fork is cut just before that result. */
  callId: string;
  /** What the model receives. */
  content: string;
  /** Default `ok`. */
  status?: "ok" | "error";
  /** The tool's own output, for hosts and consoles. */
  output?: JsonValue;
}

/** What a fork changes at its fork point. */
export interface ForkEdits {
  /**
   * Replace a person's input: `seq` is the seq of its first record (`human_input`, received or
   * parked). The fork is cut just before it, and `text` is sent in its place as a new input
   * attributed to the one who forks; the original stays in the source's log.
   */
  input?: { seq: number; text: string };
  /** The model the fork runs on (`provider:model-id`), recorded for hosts that pick a task's model. */
  model?: string;
  /** Model settings for the fork, on top of the task's own. */
  settings?: ModelSettings;
  /** Replace one tool call's recorded result (the fork is cut just before it). */
  toolResult?: ReplacedToolResult;
}

/** Where to fork and what to change. */
export interface ForkOptions {
  /** The last seq to copy; the cut moves back to the step boundary at or before it. Default: the whole log. */
  atSeq?: number;
  edits?: ForkEdits;
  /** Who forks: the replacing input is attributed to them. Default: the task's principal, unverified. */
  actor?: ActorAssertion;
  /** When given, a task of another principal is not found (`TaskNotFound`), as on every surface. */
  principal?: string;
}

/** The fork made: its id, where its copy ends, and the seq asked for when the cut moved back. */
export interface ForkResult {
  taskId: string;
  /** The source task. */
  sourceTaskId: string;
  /** The last seq of the source copied into the fork. */
  seq: number;
  /** The seq asked for, when it was not a step boundary and the cut moved back. */
  requestedSeq?: number;
  /** The children still running at the cut: their results go to the source, not the fork. */
  detachedChildren: string[];
}

/**
 * Fork `taskId` at `atSeq` (default: its last event), with `edits`. The new task belongs to the
 * same principal, is parked (`parked:forked`, or on the approvals it still waits for), and runs
 * on like any task: a steer, a follow-up or a resume. `TaskNotFound` for an unknown task (or one
 * of another `principal`), `InvalidInput` for a fork point or an edit that does not fit the log.
 */
export async function forkTask(store: Store, taskId: string, options: ForkOptions = {}): Promise<ForkResult> {
  const record = await store.getTask(taskId);
  if (options.principal !== undefined && record.principal !== options.principal) throw new TaskNotFoundError(taskId);
  const { edits = {} } = options;
  checkEdits(edits);
  const events = await store.read(taskId);
  const last = events.at(-1)?.seq ?? 0;
  const asked = options.atSeq ?? last;
  if (!Number.isInteger(asked) || asked < 1 || asked > last)
    throw new InvalidInputError(`the fork point must be a seq from 1 to ${last}, got ${asked}`, { atSeq: asked });

  const forced = forcedCut(events, edits, asked);
  const cut = forced ?? cutAt(events, asked);
  const { state } = cut;
  const detachedChildren = state.children.filter((c) => c.status === "running").map((c) => c.childTaskId);

  const copied = events.slice(0, cut.seq).map(unstamped);
  const created = copied[0];
  if (created?.type !== "task_created") throw new InvalidInputError(`task ${taskId} does not start with task_created`);
  const { parentTaskId, ...root } = created;
  const marker: TaskForkedEvent = { type: "task_forked", v: 1, origin: "fork", source: { taskId, seq: cut.seq } };
  if (cut.seq !== asked && forced === undefined) marker.atSeq = asked;
  if (options.actor !== undefined) marker.actor = options.actor;
  if (edits.model !== undefined) marker.model = edits.model;
  if (edits.settings !== undefined) marker.settings = edits.settings;
  if (detachedChildren.length > 0) marker.detachedChildren = detachedChildren;
  if (parentTaskId !== undefined) marker.sourceParentTaskId = parentTaskId;
  Object.assign(marker, unspentDecisions(state, edits.toolResult?.callId));
  const after = editEvents(events, edits, state, record.principal, options.actor, marker);

  const forkId = newId();
  await store.createTask({ taskId: forkId, created: root, more: [...copied.slice(1), marker, ...after] });
  const result: ForkResult = { taskId: forkId, sourceTaskId: taskId, seq: cut.seq, detachedChildren };
  if (marker.atSeq !== undefined) result.requestedSeq = marker.atSeq;
  return result;
}

function checkEdits(edits: ForkEdits): void {
  if (edits.input !== undefined && edits.toolResult !== undefined)
    throw new InvalidInputError("a fork replaces an input or a tool result, not both: each sets the fork point");
  if (edits.settings !== undefined) {
    const parsed = modelSettingsSchema.safeParse(edits.settings);
    if (!parsed.success)
      throw new InvalidInputError(`invalid settings for the fork: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  if (edits.model !== undefined && edits.model.length === 0) throw new InvalidInputError("the fork's model is empty");
}

/**
 * The cut an edit sets: before the input it replaces (at the last step boundary before it), or
 * just before the tool result it replaces (the call is open there, and gets the new result).
 */
function forcedCut(
  events: readonly StoredEvent[],
  edits: ForkEdits,
  asked: number,
): { seq: number; state: TaskState } | undefined {
  const at = replacedSeq(events, edits);
  if (at === undefined) return undefined;
  if (asked < at - 1)
    throw new InvalidInputError(`the edit replaces seq ${at}, so the fork point is ${at - 1}; it cannot be ${asked}`);
  if (edits.input !== undefined) return cutAt(events, at - 1);
  return { seq: at - 1, state: foldThrough(events, at - 1) };
}

function replacedSeq(events: readonly StoredEvent[], edits: ForkEdits): number | undefined {
  if (edits.input !== undefined) {
    const { seq } = edits.input;
    const event = events[seq - 1];
    if (
      event?.type !== "human_input" ||
      (event.delivery !== "received" && event.delivery !== "parked") ||
      (event.source !== "user" && event.source !== "operator" && event.source !== "supervisor")
    )
      throw new InvalidInputError(`seq ${seq} is not a person's input (its first human_input record)`, { seq });
    if (seq < 2) throw new InvalidInputError("the first event is the task's creation, not an input");
    return seq;
  }
  if (edits.toolResult !== undefined) {
    const { callId } = edits.toolResult;
    const event = events.find((e) => e.type === "tool_result" && e.callId === callId);
    if (event === undefined) throw new InvalidInputError(`no recorded result for tool call ${callId}`, { callId });
    return event.seq;
  }
  return undefined;
}

/** The events after the marker: the replacing input or tool result. */
function editEvents(
  events: readonly StoredEvent[],
  edits: ForkEdits,
  state: TaskState,
  principal: string,
  actor: ActorAssertion | undefined,
  marker: TaskForkedEvent,
): TaskEvent[] {
  if (edits.input !== undefined) {
    const original = events[edits.input.seq - 1];
    if (original?.type !== "human_input") return [];
    marker.replacedInput = { inputId: original.inputId, seq: original.seq };
    const by = actor ?? { id: principal, verified: false };
    return [
      buildHumanInputEvent({
        carrier: original.carrier,
        source: original.source,
        delivery: "parked",
        sessionSeq: state.summary.sessionSeq,
        principal,
        actor: by,
        ...(by.issuer === undefined ? {} : { issuer: by.issuer }),
        text: edits.input.text,
      }),
    ];
  }
  if (edits.toolResult !== undefined) {
    const { callId, content, status = "ok", output } = edits.toolResult;
    const open = state.openToolCalls.find((call) => call.callId === callId);
    const recorded = events.find((e) => e.type === "tool_result" && e.callId === callId);
    if (open === undefined || recorded?.type !== "tool_result")
      throw new InvalidInputError(`tool call ${callId} is not open at the fork point`, { callId });
    marker.replacedResult = { callId, seq: recorded.seq };
    const result: TaskEvent = { type: "tool_result", v: 1, callId, name: open.name, status, content };
    if (output !== undefined) result.output = output;
    return [result];
  }
  return [];
}
