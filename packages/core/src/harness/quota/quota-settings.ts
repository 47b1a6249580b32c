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

/** What {@link quotaResolver} reads of a token store: every record's principal, revocation and quotas. */
export interface QuotaTokenSource {
  /** Every token record, revoked ones included (a `TokenStore`'s `list`). */
  list(): Promise<ReadonlyArray<{ principal: string; revokedAt?: string; quotas?: Quotas }>>;
}

/** The tightest of several quotas: each key at its smallest among those that set it; undefined when none is given. */
export function tightestQuotas(all: ReadonlyArray<Quotas | undefined>): Quotas | undefined {
  let out: Record<string, number> | undefined;
  for (const quotas of all) {
    if (quotas === undefined) continue;
    out ??= {};
    for (const [key, value] of Object.entries(quotas))
      if (value !== undefined) out[key] = Math.min(out[key] ?? Number.POSITIVE_INFINITY, value);
  }
  return out as Quotas | undefined;
}

/**
 * A principal's quotas from the settings and from its live tokens' records (a token created with
 * quotas): the tightest of them, so a token can narrow what its principal may use but never widen
 * it. The token list is read at most once per `ttlMs` (default 5 s) by `now`, so a new or revoked
 * token applies within that.
 */
export function quotaResolver(
  settings: QuotaSettings | undefined,
  options: { tokens?: QuotaTokenSource; now?: () => number; ttlMs?: number } = {},
): (principal: string) => Promise<Quotas | undefined> {
  const { tokens } = options;
  if (tokens === undefined) return async (principal) => quotasOf(settings, principal);
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 5000;
  let cached:
    | { at: number; list: Promise<ReadonlyArray<{ principal: string; revokedAt?: string; quotas?: Quotas }>> }
    | undefined;
  return async (principal) => {
    const at = now();
    if (cached === undefined || at - cached.at >= ttlMs) {
      cached = { at, list: tokens.list() };
      // A failed read is asked again next time, not kept.
      cached.list.catch(() => {
        cached = undefined;
      });
    }
    const own = (await cached.list).filter((t) => t.principal === principal && t.revokedAt === undefined);
    return tightestQuotas([quotasOf(settings, principal), ...own.map((t) => t.quotas)]);
  };
}

/**
 * The gate workers run their legs with, for `settings` (and the quotas on `tokens`' records) over
 * `store`; undefined with neither.
 */
export function quotaGateFor(
  store: Store,
  settings: QuotaSettings | undefined,
  options: { now?: () => number; tokens?: QuotaTokenSource } = {},
): QuotaGate | undefined {
  if (settings === undefined && options.tokens === undefined) return undefined;
  const prices: Record<string, ModelPrice> | undefined = settings?.prices;
  return storeQuotaGate({
    store,
    quotasFor: quotaResolver(settings, options),
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
  /** The principal's quotas when they come from elsewhere too (its tokens: `quotaResolver`). */
  quotas: Quotas | undefined = quotasOf(settings, principal),
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
    quotas: quotas ?? {},
  };
}
