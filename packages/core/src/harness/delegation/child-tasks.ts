/**
 * Child tasks (design §6): an agent hands part of its work to a child task — its own log, the
 * parent's principal, `parentTaskId`. `wait` (default): the call resolves with the child's final
 * answer (a child's failure is the call's error); otherwise the parent goes on and is woken by the
 * result. Child ids derive from the parent and the call, so a crash between creating the child and
 * recording it never creates two.
 */

import { UNTRUSTED_INPUT_KEY, untrustedInputIdsOf } from "../../core/call-provenance.ts";
import { untrustedSeqs } from "../../core/entry-provenance.ts";
import { type ChildState, outstandingReservations, type TaskState } from "../../core/fold.ts";
import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import { addUsage, isTerminal } from "../../core/task-summary.ts";
import { delimitUntrusted, type RandomBytes } from "../../core/trust-framing.ts";
import { newId } from "../../internal/ids.ts";
import type { Store } from "../../ports/store.ts";
import { ForbiddenError, isSemaError, type SemaError, TaskFinishedError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { BudgetReservation, ChildTaskEvent, TaskEvent } from "../../protocol/task-event.ts";
import type { Agent } from "../agent.ts";
import { type Budget, budgetFromMetadata, budgetToJson, treeTurns } from "../budget/budget.ts";
import { reservationOf } from "../budget/budget-ledger.ts";
import { loadState } from "../leg/event-writer.ts";
import { appendToState, appendToTask } from "../tasks/append-to-task.ts";
import { type SentInput, sendInput } from "../tasks/send-input.ts";
import { startTask } from "../tasks/start-task.ts";
import { childTaskId } from "./child-id.ts";
import type { DelegateInput } from "./delegate-tool.ts";

/**
 * The agent a child task runs as: the one its parent's agent delegates to under the name the child
 * records (`task_created.agent`), else the parent's own. The one place this is decided: a child run
 * in its parent's process and one picked up by any worker run as the same agent.
 */
export function childAgent(parent: Agent, name: string | undefined): Agent {
  return (name === undefined ? undefined : parent.delegation?.agents?.[name]) ?? parent;
}

export { childTaskId } from "./child-id.ts";

/** How deep a task is (0 for a root task): its recorded depth. */
export function depthOf(state: TaskState, metadata: { [key: string]: JsonValue } | undefined): number {
  const depth = metadata?.depth;
  return typeof depth === "number" ? depth : state.parentTaskId === undefined ? 0 : 1;
}

/** The `details.reason` of the `Forbidden` a child id taken by a task that is no child of this call carries. */
export const NOT_OUR_CHILD = "child-id-taken";

/**
 * Refuse (`Forbidden`, `details.reason` {@link NOT_OUR_CHILD}) unless the task at `taskId` is the
 * child this parent's call created: its first event records the parent's principal, the parent
 * and the call. A task someone else created under that id is never adopted, so its text never
 * reaches the parent as a sub-agent's result.
 */
export async function assertOwnChild(
  store: Store,
  taskId: string,
  parent: { taskId: string; principal: string },
  callId: string,
): Promise<void> {
  const [created] = await store.read(taskId, { limit: 1 });
  if (
    created?.type === "task_created" &&
    created.principal === parent.principal &&
    created.parentTaskId === parent.taskId &&
    created.metadata?.callId === callId
  )
    return;
  throw new ForbiddenError(
    `task ${taskId} exists and is not the sub-agent task of ${parent.taskId}'s call ${callId}: not adopted`,
    { taskId, parentTaskId: parent.taskId, callId, reason: NOT_OUR_CHILD },
  );
}

/** Whether `error` is the refusal of {@link assertOwnChild}. */
export function isNotOurChild(error: unknown): error is SemaError {
  return isSemaError(error, "Forbidden") && error.details.reason === NOT_OUR_CHILD;
}

/**
 * Create the child (or find it created by a leg that died) with the parent's principal. A task
 * already at the child's id is taken only if it is that child ({@link assertOwnChild}).
 */
export async function spawnChild(
  store: Store,
  parent: { taskId: string; principal: string; depth: number; budget?: Budget },
  callId: string,
  input: DelegateInput,
  untrustedObjective = false,
): Promise<string> {
  const taskId = childTaskId(parent.taskId, callId);
  const metadata: { [key: string]: JsonValue } = { depth: parent.depth + 1, callId, wait: input.wait };
  if (parent.budget !== undefined) metadata.budget = budgetToJson(parent.budget);
  // The parent wrote the objective from untrusted text: the child's policy counts its words as such.
  const objectiveInputId = `${taskId}:objective`;
  if (untrustedObjective) metadata[UNTRUSTED_INPUT_KEY] = objectiveInputId;
  try {
    await startTask(store, {
      taskId,
      ...(untrustedObjective ? { objectiveInputId } : {}),
      objective: input.objective,
      principal: parent.principal,
      parentTaskId: parent.taskId,
      ...(input.agent === undefined ? {} : { agent: input.agent }),
      metadata,
    });
  } catch (error) {
    if (!isSemaError(error, "TaskExists")) throw error;
    // A leg that died after creating it left it: ours. Anything else there is refused.
    await assertOwnChild(store, taskId, parent, callId);
  }
  return taskId;
}

/**
 * What the parent's `delegate` call returns for a finished child: its answer, fenced as untrusted
 * when the child's context held untrusted text (`child_task` v 3), so the parent's fold and its
 * provenance policy count it as untrusted, as they count an untrusted tool's output.
 */
export function childOutcome(
  child: ChildState,
  randomBytes?: RandomBytes,
): { status: "ok" | "error"; content: string } {
  const outcome = childOutcomeText(child);
  if (child.untrusted === undefined) return outcome;
  const kind = outcome.status === "ok" ? "sub_agent_result" : "sub_agent_error";
  const options = randomBytes === undefined ? {} : { randomBytes };
  return { ...outcome, content: delimitUntrusted(outcome.content, { ...options, kind, from: child.childTaskId }) };
}

function childOutcomeText(child: ChildState): { status: "ok" | "error"; content: string } {
  if (child.status === "completed") return { status: "ok", content: child.result ?? "" };
  if (child.status === "cancelled")
    return { status: "error", content: `The sub-agent's task ${child.childTaskId} was cancelled.` };
  return {
    status: "error",
    content: `The sub-agent's task ${child.childTaskId} failed: ${child.result ?? "unknown error"}`,
  };
}

/** The result event for the parent, read from the child's own log. */
export async function childResultEvent(
  store: Store,
  childId: string,
  callId?: string,
): Promise<ChildTaskEvent | undefined> {
  const { folder } = await loadState(store, childId);
  const state = folder.state;
  const status = state.summary.status;
  if (status !== "completed" && status !== "failed" && status !== "cancelled") return undefined;
  const event: ChildTaskEvent = { type: "child_task", v: 1, phase: "result", childTaskId: childId, status };
  if (callId !== undefined) event.callId = callId;
  const result = status === "completed" ? state.result : state.error?.message;
  if (result !== undefined) event.result = result;
  event.usage =
    state.summary.childUsage === undefined
      ? state.summary.usage
      : addUsage(state.summary.usage, state.summary.childUsage);
  // A child carved from a tree-wide maxTurns reports its tree's turns, which its parent counts.
  if (budgetFromMetadata(state.metadata)?.turnsScope === "tree") {
    event.v = 2;
    event.turns = treeTurns(state);
  }
  // What its own children still hold stays held by the parent, which hears no more of them.
  const held = nonZero(outstandingReservations(state));
  if (held !== undefined) {
    event.v = 2;
    event.held = held;
  }
  // A child that read untrusted text (its own children's fenced answers among it, an objective
  // its parent wrote from untrusted text) hands it on.
  const untrusted = untrustedSeqs(state, untrustedInputIdsOf(state.metadata));
  if (untrusted.length > 0) {
    event.v = 3;
    event.untrusted = untrusted;
  }
  return event;
}

function nonZero(held: Required<BudgetReservation>): BudgetReservation | undefined {
  const out: BudgetReservation = {};
  if (held.tokens > 0) out.tokens = held.tokens;
  if (held.costUsd > 0) out.costUsd = held.costUsd;
  if (held.activeMs > 0) out.activeMs = held.activeMs;
  if (held.turns > 0) out.turns = held.turns;
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Tell the parent a child has ended: a `child_task` result, and for a child the parent did not
 * wait for, a system wake that brings the result to the model. Idempotent; a cancelled parent is
 * left alone. True when the parent has nothing more to hear of this end (told now or before, or
 * it needs no telling); false when the child has not ended after all (it was woken meanwhile).
 */
export async function notifyParent(
  store: Store,
  parentTaskId: string,
  options: { childTaskId: string },
): Promise<boolean> {
  const childId = options.childTaskId;
  let settled = true;
  await appendToState(store, parentTaskId, async (parent) => {
    settled = true;
    if (parent.summary.status === "cancelled") return undefined;
    const known = parent.children.find((c) => c.childTaskId === childId);
    // Only a child the parent recorded is reported; a finished one only once.
    if (known === undefined || known.status !== "running") return undefined;
    const result = await childResultEvent(store, childId, known.callId);
    settled = result !== undefined;
    if (result === undefined) return undefined;
    // A child the parent waits for answers its open call; any other is delivered as a wake.
    const waiting = known.callId !== undefined && parent.openToolCalls.some((c) => c.callId === known.callId);
    if (waiting) return [result];
    const outcome = childOutcome({
      childTaskId: childId,
      status: result.status ?? "completed",
      ...(result.result === undefined ? {} : { result: result.result }),
    });
    // An untrusted child's answer arrives on the external lane: fenced, and untrusted to the policy.
    const wake = buildHumanInputEvent({
      inputId: `${childId}:result`,
      carrier: "wake",
      source: result.untrusted === undefined ? "system" : "external",
      delivery: parent.summary.status === "running" ? "received" : "parked",
      sessionSeq: parent.summary.sessionSeq,
      text: `Sub-agent task ${childId} ${result.status}: ${outcome.content}`,
    });
    return [result, wake];
  });
  return settled;
}

/**
 * A child task that ended tells its parent, then records in its own log that it did
 * (`parent_notified`). Two appends to two logs: a process that dies between them leaves the
 * child runnable (`parentReport: "due"`), and whoever runs it next makes the report again, which
 * the parent takes once. The one way every end (completed, failed, cancelled) reaches the parent.
 */
export async function reportEnd(store: Store, taskId: string, parentTaskId: string): Promise<void> {
  const settled = await notifyParent(store, parentTaskId, { childTaskId: taskId }).catch((error: unknown) => {
    // A parent that is gone has nobody to tell: the report is done.
    if (!isSemaError(error, "TaskNotFound")) throw error;
    return true;
  });
  if (!settled) return;
  await appendToTask(store, taskId, (record) =>
    record.summary.parentReport === "due" ? [{ type: "parent_notified", v: 1 }] : undefined,
  );
}

/**
 * A child task that ended tells its parent (idempotently, see {@link reportEnd}); one that waits
 * for an approval says so in the parent's log, so whoever watches the parent sees it.
 */
export async function reportToParent(store: Store, taskId: string, state: TaskState): Promise<void> {
  const parentTaskId = state.parentTaskId;
  if (parentTaskId === undefined) return;
  if (isTerminal(state.summary.status)) {
    await reportEnd(store, taskId, parentTaskId);
    return;
  }
  const pending = state.approvals.filter((a) => a.decision === undefined);
  if (state.summary.parkedReason !== "approval" || pending.length === 0) return;
  const note: TaskEvent = {
    type: "engine_note",
    v: 1,
    kind: "child_approval",
    text: `Sub-agent task ${taskId} waits for approval of ${pending.map((a) => a.name).join(", ")}.`,
    data: {
      childTaskId: taskId,
      approvals: pending.map((a) => ({ callId: a.callId, name: a.name, digest: a.digest })),
    },
  };
  await appendToTask(store, parentTaskId, () => [note]);
}

/**
 * A parent steers its child on the operator lane: the child's model sees the text in the explicit
 * operator frame. Refused (`Forbidden`) unless `childTaskId` really is a child of `parentTaskId`.
 */
export async function steerChild(
  store: Store,
  childTaskId: string,
  options: { parentTaskId: string; text: string },
): Promise<SentInput> {
  const { parentTaskId, text } = options;
  const child = await store.getTask(childTaskId);
  if (child.parentTaskId !== parentTaskId) {
    throw new ForbiddenError(`task ${childTaskId} is not a child of ${parentTaskId}`, { parentTaskId, childTaskId });
  }
  return sendInput(store, childTaskId, {
    text,
    source: "operator",
    actor: { id: parentTaskId, verified: true, issuer: "sema-delegation" },
  });
}

/**
 * Start a child task from host code (not through the model's delegate tool): the parent records
 * it first, then it is created; when it ends, the parent is woken with its result. Its `budget`'s
 * limits are held against the parent's (the ledger) until then.
 */
export async function startChildTask(
  store: Store,
  parentTaskId: string,
  options: { objective: string; agent?: string; budget?: Budget },
): Promise<string> {
  const childId = childTaskId(parentTaskId, `child-${newId()}`);
  let depth = 1;
  let principal = "";
  await appendToState(store, parentTaskId, (parent) => {
    if (parent.summary.status === "cancelled") throw new TaskFinishedError(parentTaskId, "cancelled");
    depth = depthOf(parent, parent.metadata) + 1;
    principal = parent.principal;
    // A budget given here is held against the parent's limits until the child ends.
    const reserved = options.budget === undefined ? undefined : reservationOf(options.budget);
    return [
      reserved === undefined
        ? { type: "child_task", v: 1, phase: "spawned", childTaskId: childId }
        : { type: "child_task", v: 2, phase: "spawned", childTaskId: childId, reserved },
    ];
  });
  // Created only once the parent has recorded it.
  const metadata: { [key: string]: JsonValue } = { depth };
  if (options.budget !== undefined) metadata.budget = budgetToJson(options.budget);
  await startTask(store, {
    taskId: childId,
    objective: options.objective,
    principal,
    parentTaskId,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    metadata,
  });
  return childId;
}
