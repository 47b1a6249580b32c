/**
 * The quota gate a host gives its harness (`HarnessOptions.quota`): before each model call the leg
 * asks it whether the task's principal has room, and parks (`parked:quota`) when it has not. The
 * gate built here reads the store's counters, so every API node and worker sharing the store
 * enforces the same totals.
 */
import type { Store } from "../../ports/store.ts";
import { ConfigError } from "../../protocol/errors.ts";
import type { ModelPrice } from "../budget/budget.ts";
import { type QuotaCallEstimate, type Quotas, type QuotaVerdict, quotaVerdict, usageSinceMs } from "./quotas.ts";

/** What the leg asks before a model call: whose task, and the call's estimate. */
export interface QuotaCall extends QuotaCallEstimate {
  principal: string;
  taskId: string;
}

/** Asked before each model call; a verdict parks the task (`parked:quota`) with its note and timer. */
export interface QuotaGate {
  /** Whether `call` may be made: undefined when it fits every quota, else the verdict that parks the task. */
  check(call: QuotaCall): Promise<QuotaVerdict | undefined>;
}

/** What {@link storeQuotaGate} reads: the store, each principal's quotas, the price table and the clock. */
export interface StoreQuotaGateOptions {
  /** A store with `usage` (memory, SQLite, PostgreSQL). */
  store: Store;
  /** The quotas of a principal, or undefined for none (read at every check, so a raise applies at once). */
  quotasFor: (principal: string) => Quotas | undefined | Promise<Quotas | undefined>;
  /** Prices for the dollar quotas (`DEFAULT_PRICES` of `@sema-agent/ai-sdk`); a model without one costs nothing. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Milliseconds since the epoch; the windows are read by it. Default `Date.now`. */
  now?: () => number;
}

/** A gate over the store's usage counters (see the module comment). `ConfigError` for a store without `usage`. */
export function storeQuotaGate(options: StoreQuotaGateOptions): QuotaGate {
  const { store } = options;
  if (store.usage === undefined)
    throw new ConfigError("storeQuotaGate", [
      { path: "store", message: "counts no usage: quotas need a store with usage (memory, SQLite, PostgreSQL)" },
    ]);
  const now = options.now ?? Date.now;
  return {
    async check(call) {
      const quotas = await options.quotasFor(call.principal);
      if (quotas === undefined) return undefined;
      const { tokensPerDay, tokensPerMonth, costUsdPerDay, costUsdPerMonth } = quotas;
      if ([tokensPerDay, tokensPerMonth, costUsdPerDay, costUsdPerMonth].every((q) => q === undefined))
        return undefined;
      const nowMs = now();
      const usage = await store.usage?.({ principal: call.principal, sinceMs: usageSinceMs(nowMs) });
      if (usage === undefined) return undefined;
      return quotaVerdict({
        principal: call.principal,
        quotas,
        buckets: usage.buckets,
        nowMs,
        call,
        ...(options.prices === undefined ? {} : { prices: options.prices }),
      });
    },
  };
}
