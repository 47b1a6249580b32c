/**
 * Budgets: per-task limits on model turns, tokens, cost and active time. Reaching one parks the
 * task (or fails it, as configured) with an engine note that says which limit, so a person can
 * raise it and resume. Usage is what the provider reported; cost comes from the price table the
 * host configures (`Budget.prices`; core carries no vendor prices: `@sema-agent/ai-sdk` exports
 * `DEFAULT_PRICES`, which the CLI and `sema serve` pass).
 */
import type { TaskState } from "../../core/fold.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { Usage } from "../../protocol/transcript.ts";

/** US dollars per million tokens. */
export interface ModelPrice {
  /** US dollars per million input tokens. */
  input: number;
  /** US dollars per million output tokens. */
  output: number;
  /** Cached input, when the provider bills it apart. Default: `input`. */
  cachedInput?: number;
}

/**
 * Per-task limits on model turns, tokens, cost (in US dollars, from `prices`) and active time. Reaching
 * one parks the task (or fails it, with `onExceeded: "fail"`); unset limits do not apply.
 */
export interface Budget {
  /** Model turns over the whole task. */
  maxTurns?: number;
  /** Input plus output tokens over the whole task. */
  maxTokens?: number;
  /** US dollars over the whole task, priced by `prices` (a model without a price costs nothing). */
  maxCostUsd?: number;
  /** Time spent in legs (parked time does not count). */
  maxActiveMs?: number;
  /** Default `park`: the task waits for a person to raise the limit; `fail` ends it. */
  onExceeded?: "park" | "fail";
  /**
   * Prices by model id (without the provider prefix) or prefix, longest prefix first. A model with
   * no price here costs nothing against `maxCostUsd` (pass `DEFAULT_PRICES` of `@sema-agent/ai-sdk`).
   */
  prices?: Record<string, ModelPrice>;
}

/** Which budget limit a task reached (recorded in the park's detail). */
export type BudgetLimit = "turns" | "tokens" | "cost" | "time";

/** The price of `modelId` (`provider:id` or a bare id) in `prices`: the longest key it starts with. */
export function priceOf(modelId: string, prices: Readonly<Record<string, ModelPrice>>): ModelPrice | undefined {
  const bare = modelId.includes(":") ? modelId.slice(modelId.indexOf(":") + 1) : modelId;
  let best: string | undefined;
  for (const key of Object.keys(prices))
    if (bare.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  return best === undefined ? undefined : prices[best];
}

/** What `usage` cost at `price`, in US dollars. */
export function costUsd(usage: Usage, price: ModelPrice): number {
  const cached = usage.cachedInputTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cached);
  return (
    (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000
  );
}

/** The first limit the task has reached, with words for the note; undefined when within budget. */
export function exceededLimit(
  state: TaskState,
  budget: Budget,
  modelId: string,
  nowMs: number,
): { limit: BudgetLimit; text: string } | undefined {
  const { sessionSeq } = state.summary;
  const usage = totalUsage(state);
  if (budget.maxTurns !== undefined && sessionSeq >= budget.maxTurns) {
    return { limit: "turns", text: `The task reached its limit of ${budget.maxTurns} model turns.` };
  }
  const tokens = usage.inputTokens + usage.outputTokens;
  if (budget.maxTokens !== undefined && tokens >= budget.maxTokens) {
    return { limit: "tokens", text: `The task used ${tokens} tokens, reaching its limit of ${budget.maxTokens}.` };
  }
  if (budget.maxCostUsd !== undefined) {
    const price = priceOf(modelId, budget.prices ?? {});
    const cost = price === undefined ? undefined : costUsd(usage, price);
    if (cost !== undefined && cost >= budget.maxCostUsd) {
      return { limit: "cost", text: `The task cost $${cost.toFixed(4)}, reaching its limit of $${budget.maxCostUsd}.` };
    }
  }
  if (budget.maxActiveMs !== undefined) {
    const current = state.legStartedAt === undefined ? 0 : nowMs - Date.parse(state.legStartedAt);
    const active = state.activeMs + Math.max(0, current);
    if (active >= budget.maxActiveMs) {
      return {
        limit: "time",
        text: `The task ran for ${Math.round(active / 1000)} s, reaching its limit of ${Math.round(budget.maxActiveMs / 1000)} s.`,
      };
    }
  }
  return undefined;
}

/** A budget's limits as JSON, for a child task's metadata. */
export function budgetToJson(budget: Budget): { [key: string]: number | string } {
  const out: { [key: string]: number | string } = {};
  for (const key of ["maxTurns", "maxTokens", "maxCostUsd", "maxActiveMs"] as const) {
    const value = budget[key];
    if (value !== undefined) out[key] = value;
  }
  if (budget.onExceeded !== undefined) out.onExceeded = budget.onExceeded;
  return out;
}

/** The limits a task's metadata carries (a child's share of its parent's budget), if any. */
export function budgetFromMetadata(metadata: { [key: string]: JsonValue } | undefined): Budget | undefined {
  const raw = metadata?.budget;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const budget: Budget = {};
  for (const key of ["maxTurns", "maxTokens", "maxCostUsd", "maxActiveMs"] as const) {
    const value = raw[key];
    if (typeof value === "number") budget[key] = value;
  }
  if (raw.onExceeded === "park" || raw.onExceeded === "fail") budget.onExceeded = raw.onExceeded;
  return budget;
}

/** The tighter of two budgets, limit by limit. */
export function tighter(a: Budget, b: Budget | undefined): Budget {
  if (b === undefined) return a;
  const out: Budget = { ...a };
  for (const key of ["maxTurns", "maxTokens", "maxCostUsd", "maxActiveMs"] as const) {
    const x = a[key];
    const y = b[key];
    if (y !== undefined) out[key] = x === undefined ? y : Math.min(x, y);
  }
  if (b.onExceeded !== undefined && out.onExceeded === undefined) out.onExceeded = b.onExceeded;
  return out;
}

/**
 * What is left of a budget for a child: each limit less what the task (and its finished
 * children) used. Turns are not carved: a child counts its own.
 */
export function remainingBudget(state: TaskState, budget: Budget, modelId: string, nowMs: number): Budget {
  const usage = totalUsage(state);
  const out: Budget = {};
  if (budget.maxTurns !== undefined) out.maxTurns = budget.maxTurns;
  if (budget.maxTokens !== undefined)
    out.maxTokens = Math.max(0, budget.maxTokens - usage.inputTokens - usage.outputTokens);
  if (budget.maxCostUsd !== undefined) {
    const price = priceOf(modelId, budget.prices ?? {});
    out.maxCostUsd = Math.max(0, budget.maxCostUsd - (price === undefined ? 0 : costUsd(usage, price)));
  }
  if (budget.maxActiveMs !== undefined) {
    const current = state.legStartedAt === undefined ? 0 : nowMs - Date.parse(state.legStartedAt);
    out.maxActiveMs = Math.max(0, budget.maxActiveMs - state.activeMs - Math.max(0, current));
  }
  if (budget.onExceeded !== undefined) out.onExceeded = budget.onExceeded;
  return out;
}

/** The task's own usage plus its finished children's. */
export function totalUsage(state: TaskState): Usage {
  const own = state.summary.usage;
  const children = state.summary.childUsage;
  if (children === undefined) return own;
  return {
    inputTokens: own.inputTokens + children.inputTokens,
    outputTokens: own.outputTokens + children.outputTokens,
  };
}

/** The agent's budget, tightened by the share a parent carved for this task. */
export function effectiveBudget(budget: Budget | undefined, state: TaskState): Budget {
  return tighter(budget ?? {}, budgetFromMetadata(state.metadata));
}
