/**
 * What a `delegate` call does in the tool phase (design §6): answer it from its child's result,
 * wait for a child still working, or refuse it (depth, fan-out, bad input) or decide to spawn
 * one — and then create the child, with what is left of this task's budget.
 */
import type { ChildState, OpenToolCall } from "../../core/fold.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { Agent } from "../agent.ts";
import { effectiveBudget, remainingBudget } from "../budget/budget.ts";
import type { LegContext } from "../leg/leg-context.ts";
import { resultEvent } from "../tools/run-tool-call.ts";
import { childOutcome, childResultEvent, childTaskId, depthOf, spawnChild } from "./child-tasks.ts";
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
    return [resultEvent(call, { ...childOutcome(known), durationMs: 0 })];
  if (known !== undefined) {
    if (typeof input !== "string") await ensureChild(ctx, call.callId, input);
    // The child may have ended without telling us (its host died after its last append).
    const ended = await childResultEvent(ctx.store, known.childTaskId, call.callId);
    if (ended === undefined) return [];
    const child: ChildState = {
      childTaskId: known.childTaskId,
      status: ended.status ?? "completed",
      ...(ended.result === undefined ? {} : { result: ended.result }),
    };
    return [ended, resultEvent(call, { ...childOutcome(child), durationMs: 0 })];
  }
  const error = (content: string) => [resultEvent(call, { status: "error", content, durationMs: 0 })];
  if (typeof input === "string") return error(input);
  const depth = depthOf(state, state.metadata);
  if (depth >= (settings.maxDepth ?? 3))
    return error(`Delegation refused: tasks may delegate at most ${settings.maxDepth ?? 3} levels deep.`);
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

/** Create the child task if it does not exist yet (idempotent). */
export async function ensureChild(ctx: LegContext, callId: string, input: DelegateInput): Promise<void> {
  const state = ctx.writer.state;
  // The child's budget is what is left of this task's (its own share, when it has one).
  const budget = remainingBudget(state, effectiveBudget(ctx.agent.budget, state), ctx.agent.model.id, Date.now());
  const parent = { taskId: ctx.taskId, principal: state.principal, depth: depthOf(state, state.metadata) };
  await spawnChild(ctx.store, Object.keys(budget).length === 0 ? parent : { ...parent, budget }, callId, input);
}
