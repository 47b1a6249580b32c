/**
 * Fitting one model call to the task's budget, in a leg's context: a turn's (budget-check.ts) and a
 * tool's own (a quarantined reader's, through `ToolContext.fitModelCall`).
 */
import type { ModelRequest } from "../../ports/model.ts";
import { type Budget, type BudgetLimit, effectiveBudget } from "../budget/budget.ts";
import { headroom } from "../budget/budget-ledger.ts";
import { estimateInputTokens, fitCall } from "../budget/call-fit.ts";
import type { LegContext } from "./leg-context.ts";

/** A limit the task has reached, and the note's text that names it. */
export interface BudgetExceeded {
  limit: BudgetLimit;
  text: string;
}

/**
 * Clamp the call's `maxOutputTokens` to what is left of the budget once its input (estimated) is
 * paid for; the limit it would cross when it cannot fit at all. Synchronous.
 */
export function fitBudgetIn(
  ctx: LegContext,
  request: ModelRequest,
): { budget: Budget; exceeded: BudgetExceeded } | undefined {
  const { agent } = ctx.options;
  const state = ctx.writer.state;
  const budget = effectiveBudget(agent.budget, state);
  if (budget.maxTokens === undefined && budget.maxCostUsd === undefined) return undefined;
  const room = headroom(state, budget, agent.model.id, ctx.clock());
  const fit = fitCall(room, request, estimateInputTokens(request, state.lastPromptTokens), budget, agent.model.id);
  if (!fit.fits) return { budget, exceeded: fit };
  if (fit.maxOutputTokens !== undefined) request.maxOutputTokens = fit.maxOutputTokens;
  return undefined;
}
