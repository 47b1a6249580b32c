/**
 * The task's budget before a model call: a limit reached parks the task (or fails it, as
 * configured); a call that fits has its `maxOutputTokens` clamped to what is left.
 */
import type { ModelRequest } from "../../ports/model.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { type Budget, effectiveBudget, exceededLimit } from "../budget/budget.ts";
import { type BudgetExceeded, fitBudgetIn } from "./budget-fit.ts";
import { endLeg } from "./leg-end.ts";
import type { RunningLeg } from "./running-leg.ts";

export type { BudgetExceeded };

/** A limit reached parks the task (or fails it, as configured) before the next model call. */
export async function parkIfOverBudget(leg: RunningLeg): Promise<"next" | "ended"> {
  const { ctx } = leg;
  const { agent } = ctx.options;
  const budget = effectiveBudget(agent.budget, ctx.writer.state);
  const exceeded = exceededLimit(ctx.writer.state, budget, agent.model.id, ctx.clock());
  if (exceeded === undefined) return "next";
  return endForBudget(leg, budget, exceeded);
}

/** Park (or fail, as configured) at a budget limit, with the note that names it. */
export async function endForBudget(leg: RunningLeg, budget: Budget, exceeded: BudgetExceeded): Promise<"ended"> {
  const { legId } = leg.ctx;
  const note: TaskEvent = {
    type: "engine_note",
    v: 1,
    kind: "budget",
    text: exceeded.text,
    data: { limit: exceeded.limit },
    legId,
  };
  if (budget.onExceeded !== "fail") return endLeg(leg, "parked:budget", note, exceeded.limit);
  await leg.ctx.writer.append([
    note,
    { type: "task_failed", v: 1, error: { code: "BudgetExceeded", message: exceeded.text } },
    { type: "leg_ended", v: 1, legId, reason: "failed" },
  ]);
  return "ended";
}

/**
 * Clamp the call's `maxOutputTokens` to what is left of the budget once its input (estimated) is
 * paid for; the limit it would cross when it cannot fit at all, for the leg to park first.
 * Synchronous: a call within budget awaits nothing more.
 */
export function fitBudget(
  leg: RunningLeg,
  request: ModelRequest,
): { budget: Budget; exceeded: BudgetExceeded } | undefined {
  return fitBudgetIn(leg.ctx, request);
}
