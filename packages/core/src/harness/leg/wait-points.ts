/**
 * Where a turn's tool calls wait, the leg parks: for a person's decision (`parked:approval`), for
 * children that run elsewhere or parked (`parked:child`), for results from outside (`parked:tool`).
 */
import { waitsOutside } from "../tools/tool-phase.ts";
import { endLeg } from "./leg-end.ts";
import type { RunningLeg } from "./running-leg.ts";

/**
 * Whether the open calls may wait for something: approvals, an agent that delegates, external
 * tools. Synchronous, so that a turn with none pays for no promise of `parkWhereCallsWait`.
 */
export function callsMayWait(leg: RunningLeg): boolean {
  const { writer, options } = leg.ctx;
  return (
    writer.state.approvals.length > 0 ||
    options.agent.delegation !== undefined ||
    writer.state.externalTools !== undefined
  );
}

/** Park if the open calls wait for something; `ended` when the leg did. */
export async function parkWhereCallsWait(leg: RunningLeg): Promise<"next" | "ended"> {
  const { writer, options } = leg.ctx;
  // Each check is awaited only when the state says it may have work.
  if (writer.state.approvals.length > 0 && (await parkForApprovals(leg))) return "ended";
  if (options.agent.delegation !== undefined && (await awaitChildren(leg))) return "ended";
  if (writer.state.externalTools !== undefined && (await parkForExternal(leg))) return "ended";
  return "next";
}

/** Calls wait for decisions: park; the leg that resumes after the last decision runs them. */
async function parkForApprovals(leg: RunningLeg): Promise<boolean> {
  if (!leg.ctx.writer.state.approvals.some((a) => a.decision === undefined)) return false;
  await endLeg(leg, "parked:approval");
  return true;
}

/**
 * Delegate calls wait for their children. With runChildren (the default) the children run here,
 * each in its own legs, and their answers go to the waiting calls; a child that parks (an
 * approval, a budget) parks this task too (`parked:child`) until its result arrives.
 */
async function awaitChildren(leg: RunningLeg): Promise<boolean> {
  const { ctx } = leg;
  const w = ctx.writer;
  const settings = ctx.options.agent.delegation;
  if (settings === undefined) return false;
  const waiting = () =>
    w.state.openToolCalls.filter((call) =>
      w.state.children.some((c) => c.callId === call.callId && c.status === "running"),
    );
  if (waiting().length === 0) return false;
  if (settings.runChildren !== false) {
    for (const call of waiting()) {
      const child = w.state.children.find((c) => c.callId === call.callId);
      if (child === undefined) continue;
      await ctx.runChild(child.childTaskId);
    }
    await w.refresh();
    await leg.toolPhase.run(
      w.state.openToolCalls.filter((call) => w.state.children.some((c) => c.callId === call.callId)),
    );
    if (waiting().length === 0) return false;
  }
  await endLeg(leg, "parked:child");
  return true;
}

/**
 * Calls to external tools wait for results from outside: park until the last one is recorded.
 * Decided again on a conflict: a result that arrived meanwhile lets the leg go on instead (it
 * would otherwise park with nothing left to wake it).
 */
async function parkForExternal(leg: RunningLeg): Promise<boolean> {
  const { ctx } = leg;
  const waiting = () => ctx.writer.state.openToolCalls.some((call) => waitsOutside(ctx, call));
  if (!waiting()) return false;
  let over = false;
  await ctx.writer.appendWhen((state) => {
    over = state.summary.legId !== ctx.legId;
    if (over || !waiting()) return undefined;
    over = true;
    return [{ type: "leg_ended", v: 1, legId: ctx.legId, reason: "parked:tool" }];
  });
  return over;
}
