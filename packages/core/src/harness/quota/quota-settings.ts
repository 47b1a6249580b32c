/**
 * The quotas a host enforces per principal (`quotas` of `createApp`, `serve`, `sema.config.*`):
 * a default for every principal and, per principal, quotas that replace it. The API checks
 * `concurrentTasks` at creation (429 `QuotaExceeded`); the workers' quota gate parks a task at the
 * token and dollar quotas (`parked:quota`), over the store's counters. Here, not in the server,
 * so a worker process loads no HTTP framework to enforce them.
 */
import { z } from "zod";
import type { Store } from "../../ports/store.ts";
import { ConfigError } from "../../protocol/errors.ts";
import type { ModelPrice } from "../budget/budget.ts";
import { type QuotaGate, storeQuotaGate } from "./quota-gate.ts";
import { dayWindowStartMs, type Quotas, quotasSchema, quotaUsage, usageSinceMs } from "./quotas.ts";

/**
 * Quotas by principal: `default` for every principal not in `principals`, whose entry replaces it
 * whole (an empty object: no quotas for that principal); `prices` for the dollar quotas.
 */
export const quotaSettingsSchema = z.strictObject({
  default: quotasSchema.exactOptional(),
  principals: z.record(z.string().min(1), quotasSchema).exactOptional(),
  /** US dollars per million tokens, by model id prefix, for the dollar quotas (as `Budget.prices`). */
  prices: z
    .record(
      z.string(),
      z.strictObject({
        input: z.number().nonnegative(),
        output: z.number().nonnegative(),
        cachedInput: z.number().nonnegative().exactOptional(),
      }),
    )
    .exactOptional(),
});
/** Quotas by principal (see {@link quotaSettingsSchema}). */
export type QuotaSettings = z.infer<typeof quotaSettingsSchema>;

/** The quotas of `principal` under `settings`, or undefined when it has none. */
export function quotasOf(settings: QuotaSettings | undefined, principal: string): Quotas | undefined {
  if (settings === undefined) return undefined;
  const own = settings.principals === undefined ? undefined : Object.hasOwn(settings.principals, principal);
  return own === true ? settings.principals?.[principal] : settings.default;
}

/** The gate workers run their legs with, for `settings` over `store` (undefined without settings). */
export function quotaGateFor(
  store: Store,
  settings: QuotaSettings | undefined,
  options: { now?: () => number } = {},
): QuotaGate | undefined {
  if (settings === undefined) return undefined;
  const prices: Record<string, ModelPrice> | undefined = settings.prices;
  return storeQuotaGate({
    store,
    quotasFor: (principal) => quotasOf(settings, principal),
    ...(prices === undefined ? {} : { prices }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/** A principal's usage in each window, its active tasks and its quotas: what `GET /v1/usage` and `sema usage` show. */
export interface PrincipalUsage {
  principal: string;
  /** ISO-8601: the moment the windows are read at. */
  at: string;
  /** The rolling day (the last 24 whole UTC hours) and the calendar month (UTC): where each starts, its tokens and dollars. */
  day: { since: string; tokens: number; costUsd: number };
  month: { since: string; tokens: number; costUsd: number };
  activeTasks: number;
  /** The principal's quotas under the settings (empty: none). */
  quotas: Quotas;
}

/** Read `principal`'s usage from the store's counters at `nowMs` (`ConfigError` for a store without `usage`). */
export async function principalUsage(
  store: Store,
  principal: string,
  settings: QuotaSettings | undefined,
  nowMs: number,
): Promise<PrincipalUsage> {
  if (store.usage === undefined)
    throw new ConfigError("principalUsage", [{ path: "store", message: "counts no usage (Store.usage)" }]);
  const report = await store.usage({ principal, sinceMs: usageSinceMs(nowMs) });
  const prices: Record<string, ModelPrice> | undefined = settings?.prices;
  const usage = quotaUsage(report.buckets, nowMs, prices);
  const date = new Date(nowMs);
  return {
    principal,
    at: date.toISOString(),
    day: { since: new Date(dayWindowStartMs(nowMs)).toISOString(), ...usage.day },
    month: { since: new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).toISOString(), ...usage.month },
    activeTasks: report.activeTasks,
    quotas: quotasOf(settings, principal) ?? {},
  };
}
