/**
 * Budgets: limits on model turns, tokens, cost and active time. Reaching one parks the task (or
 * fails it, as configured) with an engine note that says which limit, so a person can raise it and
 * resume. Usage is what the provider reported; cost comes from the price table the host configures
 * (`Budget.prices`; core carries no vendor prices: `@sema-agent/ai-sdk` exports `DEFAULT_PRICES`,
 * which the CLI and `sema serve` pass). A task's running children hold their shares against its
 * limits (the ledger, `budget-ledger.ts`; `docs/guide/budgets-and-quotas.md`).
 */
import { outstandingReservations, type TaskState } from "../../core/fold.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { Usage } from "../../protocol/usage.ts";

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
 * Limits on model turns, tokens, cost (in US dollars, from `prices`) and active time. Tokens, cost
 * and time count the task and its children (each child is carved a share, held against this
 * task's limits while it runs); turns count the task's own unless `turnsScope` is `"tree"`.
 * Reaching one parks the task (or fails it, with `onExceeded: "fail"`); unset limits do not apply.
 */
export interface Budget {
  /** Model turns over the whole task (and its children's, with `turnsScope: "tree"`). */
  maxTurns?: number;
  /**
   * What `maxTurns` counts: `"task"` (default) this task's own turns, each child counting its own;
   * `"tree"` the turns of the task and of all its children, which are carved shares of it.
   */
  turnsScope?: "task" | "tree";
  /** Input plus output tokens over the whole task and its children. */
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

/** A duration for a note: milliseconds under a second, whole seconds from there. */
export function formatDuration(ms: number): string {
  const whole = Math.round(ms);
  return whole < 1000 ? `${whole} ms` : `${Math.round(whole / 1000)} s`;
}

/** The model turns a task's tree has made: its own and those its ended children reported. */
export function treeTurns(state: TaskState): number {
  let turns = state.summary.sessionSeq;
  for (const child of state.children) turns += child.turns ?? 0;
  return turns;
}

/** The task's spend so far, limit by limit (tokens and cost include its ended children). */
export function spentOf(
  state: TaskState,
  budget: Budget,
  modelId: string,
  nowMs: number,
): { tokens: number; costUsd: number | undefined; activeMs: number; turns: number } {
  const usage = totalUsage(state);
  const price = budget.maxCostUsd === undefined ? undefined : priceOf(modelId, budget.prices ?? {});
  const current = state.legStartedAt === undefined ? 0 : nowMs - Date.parse(state.legStartedAt);
  return {
    tokens: usage.inputTokens + usage.outputTokens,
    costUsd: price === undefined ? undefined : costUsd(usage, price),
    activeMs: state.activeMs + Math.max(0, current),
    turns: budget.turnsScope === "tree" ? treeTurns(state) : state.summary.sessionSeq,
  };
}

/**
 * The first limit the task has reached, with words for the note; undefined when within budget.
 * Reached means spent plus what its running children hold (the ledger) is at the limit or past it.
 */
export function exceededLimit(
  state: TaskState,
  budget: Budget,
  modelId: string,
  nowMs: number,
): { limit: BudgetLimit; text: string } | undefined {
  const closed = closedShare(state);
  if (closed !== undefined) return closed;
  const spent = spentOf(state, budget, modelId, nowMs);
  const held = outstandingReservations(state);
  const holding = (amount: string) => ` and its running sub-agents hold ${amount} more`;
  if (budget.maxTurns !== undefined && spent.turns + held.turns >= budget.maxTurns) {
    if (budget.turnsScope !== "tree")
      return { limit: "turns", text: `The task reached its limit of ${budget.maxTurns} model turns.` };
    const hold = held.turns > 0 ? holding(`${held.turns}`) : "";
    return {
      limit: "turns",
      text: `The task and its sub-agents made ${spent.turns} model turns${hold}, reaching their limit of ${budget.maxTurns}.`,
    };
  }
  if (budget.maxTokens !== undefined && spent.tokens + held.tokens >= budget.maxTokens) {
    const hold = held.tokens > 0 ? holding(`${held.tokens}`) : "";
    return {
      limit: "tokens",
      text: `The task used ${spent.tokens} tokens${hold}, reaching its limit of ${budget.maxTokens}.`,
    };
  }
  // A model without a price costs nothing: only what children hold can reach the limit then.
  const cost = spent.costUsd ?? 0;
  if (
    budget.maxCostUsd !== undefined &&
    (spent.costUsd !== undefined || held.costUsd > 0) &&
    cost + held.costUsd >= budget.maxCostUsd
  ) {
    const hold = held.costUsd > 0 ? holding(`$${held.costUsd.toFixed(4)}`) : "";
    return {
      limit: "cost",
      text: `The task cost $${cost.toFixed(4)}${hold}, reaching its limit of $${budget.maxCostUsd}.`,
    };
  }
  if (budget.maxActiveMs !== undefined && spent.activeMs + held.activeMs >= budget.maxActiveMs) {
    const hold = held.activeMs > 0 ? holding(formatDuration(held.activeMs)) : "";
    return {
      limit: "time",
      text: `The task ran for ${formatDuration(spent.activeMs)}${hold}, reaching its limit of ${formatDuration(budget.maxActiveMs)}.`,
    };
  }
  return undefined;
}

/**
 * A child's share is closed once it has told its parent it ended: the parent took its spend then
 * and released the rest, so a leg that runs after that (a wake) may spend nothing more of it.
 */
function closedShare(state: TaskState): { limit: BudgetLimit; text: string } | undefined {
  if (state.reportedEnd !== true) return undefined;
  const share = budgetFromMetadata(state.metadata);
  if (share === undefined) return undefined;
  const limit: BudgetLimit | undefined =
    share.maxTokens !== undefined
      ? "tokens"
      : share.maxCostUsd !== undefined
        ? "cost"
        : share.maxActiveMs !== undefined
          ? "time"
          : share.turnsScope === "tree" && share.maxTurns !== undefined
            ? "turns"
            : undefined;
  if (limit === undefined) return undefined;
  return {
    limit,
    text: "The task ended and reported to its parent task, which took what it spent and released the rest of its share: it has no budget left.",
  };
}

/** A budget's limits as JSON, for a child task's metadata. */
export function budgetToJson(budget: Budget): { [key: string]: number | string } {
  const out: { [key: string]: number | string } = {};
  for (const key of ["maxTurns", "maxTokens", "maxCostUsd", "maxActiveMs"] as const) {
    const value = budget[key];
    if (value !== undefined) out[key] = value;
  }
  if (budget.turnsScope !== undefined) out.turnsScope = budget.turnsScope;
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
  if (raw.turnsScope === "task" || raw.turnsScope === "tree") budget.turnsScope = raw.turnsScope;
  if (raw.onExceeded === "park" || raw.onExceeded === "fail") budget.onExceeded = raw.onExceeded;
  return budget;
}

/** The tighter of two budgets, limit by limit; turns counted over the tree if either says so. */
export function tighter(a: Budget, b: Budget | undefined): Budget {
  if (b === undefined) return a;
  const out: Budget = { ...a };
  for (const key of ["maxTurns", "maxTokens", "maxCostUsd", "maxActiveMs"] as const) {
    const x = a[key];
    const y = b[key];
    if (y !== undefined) out[key] = x === undefined ? y : Math.min(x, y);
  }
  if (b.turnsScope === "tree") out.turnsScope = "tree";
  if (b.onExceeded !== undefined && out.onExceeded === undefined) out.onExceeded = b.onExceeded;
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
