/**
 * The budget ledger (docs/guide/budgets-and-quotas.md): what a task may still spend is its limit
 * less what it and its ended children spent less what its running children hold. A child's share
 * is recorded on its `child_task` spawn (v 2, `reserved`) and released by its result, so the ledger
 * is folded from the log and a resumed leg, in any process, sees the same one.
 */
import { outstandingReservations, type TaskState } from "../../core/fold.ts";
import type { BudgetReservation } from "../../protocol/task-event.ts";
import { type Budget, spentOf } from "./budget.ts";

/**
 * What the task may still spend of each limit it has: the limit, less what it spent, less what its
 * running children hold. Negative when a turn crossed the limit. `turns` only for a tree-wide
 * `maxTurns` (a task-wide one is the task's own and is not shared).
 */
export interface Headroom {
  tokens?: number;
  costUsd?: number;
  activeMs?: number;
  turns?: number;
}

/** The task's headroom under `budget` now (see {@link Headroom}). */
export function headroom(state: TaskState, budget: Budget, modelId: string, nowMs: number): Headroom {
  const spent = spentOf(state, budget, modelId, nowMs);
  const held = outstandingReservations(state);
  const out: Headroom = {};
  if (budget.maxTokens !== undefined) out.tokens = budget.maxTokens - spent.tokens - held.tokens;
  if (budget.maxCostUsd !== undefined) out.costUsd = budget.maxCostUsd - (spent.costUsd ?? 0) - held.costUsd;
  if (budget.maxActiveMs !== undefined) out.activeMs = budget.maxActiveMs - spent.activeMs - held.activeMs;
  if (budget.maxTurns !== undefined && budget.turnsScope === "tree")
    out.turns = budget.maxTurns - spent.turns - held.turns;
  return out;
}

/**
 * The share each of `count` children spawned together is carved, and held: equal shares of the
 * headroom, rounded down (whole tokens, turns and milliseconds, micro-dollars), so together they
 * never hold more than there is. `parentKeeps`: the parent goes on working while they run (a
 * child it does not wait for), so it keeps one share more for itself. Undefined when the budget
 * has nothing to share (no limits, or only a task-wide `maxTurns`).
 */
export function siblingShare(room: Headroom, count: number, parentKeeps: boolean): BudgetReservation | undefined {
  const shares = Math.max(1, count) + (parentKeeps ? 1 : 0);
  const whole = (value: number) => Math.max(0, Math.floor(value / shares));
  const share: BudgetReservation = {};
  if (room.tokens !== undefined) share.tokens = whole(room.tokens);
  if (room.costUsd !== undefined) share.costUsd = Math.max(0, Math.floor((room.costUsd / shares) * 1e6) / 1e6);
  if (room.activeMs !== undefined) share.activeMs = whole(room.activeMs);
  if (room.turns !== undefined) share.turns = whole(room.turns);
  return Object.keys(share).length === 0 ? undefined : share;
}

/**
 * The budget a child is given from its share: each shared limit is the share; a task-wide
 * `maxTurns` passes whole (the child counts its own), and so does `onExceeded`.
 */
export function shareBudget(share: BudgetReservation | undefined, parent: Budget): Budget {
  const out: Budget = {};
  if (parent.maxTurns !== undefined) out.maxTurns = share?.turns ?? parent.maxTurns;
  if (parent.turnsScope === "tree") out.turnsScope = "tree";
  if (share?.tokens !== undefined) out.maxTokens = share.tokens;
  if (share?.costUsd !== undefined) out.maxCostUsd = share.costUsd;
  if (share?.activeMs !== undefined) out.maxActiveMs = share.activeMs;
  if (parent.onExceeded !== undefined) out.onExceeded = parent.onExceeded;
  return out;
}

/**
 * What is held for a child a host starts with an explicit budget (`startChildTask`): its limits,
 * as given. Undefined when it shares none of them.
 */
export function reservationOf(budget: Budget): BudgetReservation | undefined {
  const held: BudgetReservation = {};
  if (budget.maxTokens !== undefined) held.tokens = Math.floor(budget.maxTokens);
  if (budget.maxCostUsd !== undefined) held.costUsd = budget.maxCostUsd;
  if (budget.maxActiveMs !== undefined) held.activeMs = Math.floor(budget.maxActiveMs);
  if (budget.maxTurns !== undefined && budget.turnsScope === "tree") held.turns = Math.floor(budget.maxTurns);
  return Object.keys(held).length === 0 ? undefined : held;
}
