/**
 * What a `delegate` call does in the tool phase (design §6): answer it from its child's result,
 * wait for a child still working, or refuse it (depth, fan-out, bad input) or decide to spawn
 * one — and then create the child, with the share of this task's budget its spawn set aside.
 */
import { type ChildState, Folder, type OpenToolCall } from "../../core/fold.ts";
import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { Agent } from "../agent.ts";
import { effectiveBudget } from "../budget/budget.ts";
import { headroom, shareBudget, siblingShare } from "../budget/budget-ledger.ts";
import type { LegContext } from "../leg/leg-context.ts";
import { ProvenanceGate } from "../tools/provenance-gate.ts";
import { resultEvent } from "../tools/run-tool-call.ts";
import {
  assertOwnChild,
  childOutcome,
  childResultEvent,
  childTaskId,
  depthOf,
  isNotOurChild,
  spawnChild,
} from "./child-tasks.ts";
import { DELEGATE_TOOL, type DelegateInput, parseDelegateInput } from "./delegate-tool.ts";

/** The delegate tool's name for this agent; undefined when it does not delegate. */
export function delegateToolName(agent: Agent): string | undefined {
  const settings = agent.delegation;
  return settings === undefined ? undefined : (settings.toolName ?? DELEGATE_TOOL);
}

/**
 * A `delegate` call: answer it from its child's result, wait for a child still working, or
 * decide to spawn one. The parent records `child_task spawned` first and the child task is
 * created after that append (see `ToolPhase.run`), so a crash in between is mended on resume (the child
 * is created then) and can never leave a child the parent does not know about.
 */
export async function delegateCallEvents(
  ctx: LegContext,
  call: OpenToolCall,
  spawnedBefore: number,
  toCreate: Array<{ callId: string; input: DelegateInput }>,
): Promise<TaskEvent[]> {
  const settings = ctx.agent.delegation ?? {};
  const state = ctx.writer.state;
  const input = parseDelegateInput(call.input, settings);
  const known = state.children.find((child) => child.callId === call.callId);
  if (known !== undefined && known.status !== "running")
    return [resultEvent(call, { ...childOutcome(known, ctx.options.randomBytes), durationMs: 0 })];
  if (known !== undefined) {
    // Nothing is read from a task at the child's id that is not this call's child.
    try {
      if (typeof input !== "string") await ensureChild(ctx, call.callId, input);
      else await assertOwnChild(ctx.store, known.childTaskId, parentOf(ctx), call.callId);
    } catch (error) {
      if (!isNotOurChild(error)) throw error;
      return refusedChild(ctx, call, known.childTaskId, error.message);
    }
    // The child may have ended without telling us (its host died after its last append).
    const ended = await childResultEvent(ctx.store, known.childTaskId, call.callId);
    if (ended === undefined) return [];
    const child: ChildState = {
      childTaskId: known.childTaskId,
      status: ended.status ?? "completed",
      ...(ended.result === undefined ? {} : { result: ended.result }),
      ...(ended.untrusted === undefined ? {} : { untrusted: ended.untrusted }),
    };
    return [ended, resultEvent(call, { ...childOutcome(child, ctx.options.randomBytes), durationMs: 0 })];
  }
  const error = (content: string) => [resultEvent(call, { status: "error", content, durationMs: 0 })];
  if (typeof input === "string") return error(input);
  const depth = depthOf(state, state.metadata);
  const maxDepth = settings.maxDepth ?? 3;
  if (depth >= maxDepth)
    return error(
      `Delegation refused: tasks may delegate at most ${maxDepth} ${maxDepth === 1 ? "level" : "levels"} deep.`,
    );
  if (state.children.length + spawnedBefore >= (settings.maxChildren ?? 10)) {
    return error(`Delegation refused: a task may start at most ${settings.maxChildren ?? 10} sub-agents.`);
  }
  toCreate.push({ callId: call.callId, input });
  const childId = childTaskId(ctx.taskId, call.callId);
  const spawned: TaskEvent = {
    type: "child_task",
    v: 1,
    phase: "spawned",
    childTaskId: childId,
    callId: call.callId,
  };
  if (input.wait) return [spawned];
  return [
    spawned,
    resultEvent(call, {
      status: "ok",
      content: `Started sub-agent task ${childId}; its result will arrive as a message.`,
      durationMs: 0,
    }),
  ];
}

/**
 * Set aside the shares of the children one turn spawns (the ledger, design §6): each spawn in
 * `pending` for a call of `toCreate` records, as `child_task` v 2 `reserved`, an equal share of
 * what the task may still spend once `pending` is folded in (the turn's own usage among it). A
 * child not waited for leaves the parent working beside it: the parent keeps a share too.
 * Called before `pending` is appended, so the spawns and their shares are one append.
 */
export function reserveShares(
  ctx: LegContext,
  pending: TaskEvent[],
  toCreate: ReadonlyArray<{ callId: string; input: DelegateInput }>,
): void {
  if (toCreate.length === 0) return;
  const budget = effectiveBudget(ctx.agent.budget, ctx.writer.state);
  const after = new Folder(ctx.writer.state).applyAll(pending).state;
  const room = headroom(after, budget, ctx.agent.model.id, ctx.clock());
  const share = siblingShare(
    room,
    toCreate.length,
    toCreate.some((child) => !child.input.wait),
  );
  if (share === undefined) return;
  const callIds = new Set(toCreate.map((child) => child.callId));
  for (const event of pending) {
    if (event.type !== "child_task" || event.phase !== "spawned" || !callIds.has(event.callId ?? "")) continue;
    event.v = 2;
    event.reserved = { ...share };
  }
}

/**
 * Create the child task if it does not exist yet (idempotent), with the budget its spawn set aside
 * (a spawn recorded before the ledger set nothing aside: the child gets what is left, as then).
 */
export async function ensureChild(ctx: LegContext, callId: string, input: DelegateInput): Promise<void> {
  const state = ctx.writer.state;
  const budget = effectiveBudget(ctx.agent.budget, state);
  const known = state.children.find((child) => child.callId === callId);
  const share = known?.reserved ?? siblingShare(headroom(state, budget, ctx.agent.model.id, ctx.clock()), 1, false);
  const carved = shareBudget(share, budget);
  const parent = { ...parentOf(ctx), depth: depthOf(state, state.metadata) };
  // A pure function of the log: a leg that resumes to create the child decides the same.
  const untrusted = new ProvenanceGate(ctx.agent).taints(state, { callId, input: { objective: input.objective } });
  await spawnChild(
    ctx.store,
    Object.keys(carved).length === 0 ? parent : { ...parent, budget: carved },
    callId,
    input,
    untrusted,
  );
}

function parentOf(ctx: LegContext): { taskId: string; principal: string } {
  return { taskId: ctx.taskId, principal: ctx.writer.state.principal };
}

/**
 * What the parent records when its child's id is held by a task that is not its child (created
 * ahead of the delegation by someone else): the child failed, and the call says why — as its
 * result when the call waits, else as the wake a finished child would send. Nothing of that
 * task's log is read.
 */
export function refusedChild(ctx: LegContext, call: OpenToolCall, childId: string, reason: string): TaskEvent[] {
  const content = `Delegation failed: ${reason}.`;
  const failed: TaskEvent = {
    type: "child_task",
    v: 1,
    phase: "result",
    childTaskId: childId,
    callId: call.callId,
    status: "failed",
    result: content,
  };
  const state = ctx.writer.state;
  if (state.openToolCalls.some((open) => open.callId === call.callId))
    return [failed, resultEvent(call, { status: "error", content, durationMs: 0 })];
  const wake = buildHumanInputEvent({
    inputId: `${childId}:result`,
    carrier: "wake",
    source: "system",
    delivery: "received",
    sessionSeq: state.summary.sessionSeq,
    text: `Sub-agent task ${childId} failed: ${content}`,
  });
  return [failed, wake];
}

/**
 * Create the children one tool phase spawned (after their spawns are recorded): the events to
 * append for any whose id another task holds ({@link refusedChild}).
 */
export async function createChildren(
  ctx: LegContext,
  calls: readonly OpenToolCall[],
  toCreate: ReadonlyArray<{ callId: string; input: DelegateInput }>,
): Promise<TaskEvent[]> {
  const refused: TaskEvent[] = [];
  for (const child of toCreate) {
    try {
      await ensureChild(ctx, child.callId, child.input);
    } catch (error) {
      const call = calls.find((c) => c.callId === child.callId);
      if (!isNotOurChild(error) || call === undefined) throw error;
      refused.push(...refusedChild(ctx, call, childTaskId(ctx.taskId, child.callId), error.message));
    }
  }
  return refused;
}
