/**
 * Quotas per principal: tokens and dollars per rolling day and per calendar month (UTC), and
 * active tasks at once. A host (`sema serve`, workers) sets them per principal; the store counts
 * the usage (`Store.usage`), so every process sharing the store sees the same totals. This module
 * is the pure part: given the counters and a clock, is there room for the next model call, and if
 * not, when will there be?
 */
import { z } from "zod";
import type { UsageBucket } from "../../ports/store.ts";
import { type ModelPrice, priceOf } from "../budget/budget.ts";

const HOUR_MS = 3_600_000;
/** The rolling day, in whole hours: a bucket leaves the window 24 hours after its hour began. */
const DAY_HOURS = 24;

/**
 * A principal's quotas, each optional: `tokensPerDay` and `costUsdPerDay` over the rolling last 24
 * hours (counted in whole hours), `tokensPerMonth` and `costUsdPerMonth` over the calendar month
 * (UTC), `concurrentTasks` active root tasks at once (refused at creation).
 */
export const quotasSchema = z.strictObject({
  tokensPerDay: z.number().int().positive().exactOptional(),
  tokensPerMonth: z.number().int().positive().exactOptional(),
  costUsdPerDay: z.number().positive().exactOptional(),
  costUsdPerMonth: z.number().positive().exactOptional(),
  concurrentTasks: z.number().int().positive().exactOptional(),
});
/** A principal's quotas (see {@link quotasSchema}). */
export type Quotas = z.infer<typeof quotasSchema>;

/** The name of one quota, as notes, park details and errors name it. */
export type QuotaName = keyof Quotas;

/** What a principal used in each window, at a moment: tokens and dollars (priced by the host's table). */
export interface QuotaUsage {
  day: { tokens: number; costUsd: number };
  month: { tokens: number; costUsd: number };
}

/** Why the next model call may not be made: which quota, the note that says so, and when to try again. */
export interface QuotaVerdict {
  quota: QuotaName;
  /** For people: the quota, its use and when it allows the task again. */
  text: string;
  /** When the window allows the call again (ms since the epoch); absent when no window ever will (the call alone is over the quota). */
  retryAtMs?: number;
}

function monthStartMs(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextMonthStartMs(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** The first hour of the rolling day at `nowMs` (ms since the epoch). */
export function dayWindowStartMs(nowMs: number): number {
  return Math.floor(nowMs / HOUR_MS) * HOUR_MS - (DAY_HOURS - 1) * HOUR_MS;
}

/** Where a usage query must start to see both windows at `nowMs`. */
export function usageSinceMs(nowMs: number): number {
  return Math.min(dayWindowStartMs(nowMs), monthStartMs(nowMs));
}

function bucketCost(bucket: UsageBucket, prices: Readonly<Record<string, ModelPrice>>): number {
  const price = priceOf(bucket.model, prices);
  if (price === undefined) return 0;
  const fresh = Math.max(0, bucket.inputTokens - bucket.cachedInputTokens);
  const cached = bucket.cachedInputTokens * (price.cachedInput ?? price.input);
  return (fresh * price.input + cached + bucket.outputTokens * price.output) / 1_000_000;
}

function sumFrom(
  buckets: readonly UsageBucket[],
  fromMs: number,
  prices: Readonly<Record<string, ModelPrice>>,
): { tokens: number; costUsd: number } {
  let tokens = 0;
  let costUsd = 0;
  for (const bucket of buckets) {
    if (Date.parse(bucket.hour) < fromMs) continue;
    tokens += bucket.inputTokens + bucket.outputTokens;
    costUsd += bucketCost(bucket, prices);
  }
  return { tokens, costUsd };
}

/** What the buckets add up to in each window at `nowMs`. */
export function quotaUsage(
  buckets: readonly UsageBucket[],
  nowMs: number,
  prices: Readonly<Record<string, ModelPrice>> = {},
): QuotaUsage {
  return {
    day: sumFrom(buckets, dayWindowStartMs(nowMs), prices),
    month: sumFrom(buckets, monthStartMs(nowMs), prices),
  };
}

/** The next call, as far as it is known before it is made: its model and estimated input tokens. */
export interface QuotaCallEstimate {
  modelId: string;
  inputTokens: number;
}

function describe(quota: QuotaName, used: number, limit: number): string {
  switch (quota) {
    case "tokensPerDay":
      return `${used} of its ${limit} tokens per day (the last 24 hours)`;
    case "tokensPerMonth":
      return `${used} of its ${limit} tokens per month`;
    case "costUsdPerDay":
      return `$${used.toFixed(4)} of its $${limit} per day (the last 24 hours)`;
    case "costUsdPerMonth":
      return `$${used.toFixed(4)} of its $${limit} per month`;
    case "concurrentTasks":
      return `${used} of its ${limit} tasks at once`;
  }
}

/**
 * Whether the next call would go past a quota: the window's use plus the call's estimated input
 * must leave room (at least one token, some dollars). The first quota that refuses is named, the
 * day's before the month's, tokens before dollars. A day quota allows the call again at the first
 * hour's edge where the hours that left the window free enough; a month quota at the next month.
 */
export function quotaVerdict(options: {
  principal: string;
  quotas: Quotas;
  buckets: readonly UsageBucket[];
  nowMs: number;
  call: QuotaCallEstimate;
  prices?: Readonly<Record<string, ModelPrice>>;
}): QuotaVerdict | undefined {
  const { quotas, buckets, nowMs, call } = options;
  const prices = options.prices ?? {};
  const price = priceOf(call.modelId, prices);
  const callCost = price === undefined ? 0 : (call.inputTokens * price.input) / 1_000_000;
  const usage = quotaUsage(buckets, nowMs, prices);
  const checks: { quota: QuotaName; window: "day" | "month"; measure: "tokens" | "costUsd"; need: number }[] = [
    { quota: "tokensPerDay", window: "day", measure: "tokens", need: call.inputTokens },
    { quota: "costUsdPerDay", window: "day", measure: "costUsd", need: callCost },
    { quota: "tokensPerMonth", window: "month", measure: "tokens", need: call.inputTokens },
    { quota: "costUsdPerMonth", window: "month", measure: "costUsd", need: callCost },
  ];
  for (const check of checks) {
    const limit = quotas[check.quota];
    if (limit === undefined) continue;
    const used = usage[check.window][check.measure];
    if (used + check.need < limit) continue;
    const retryAtMs =
      check.window === "month"
        ? check.need < limit
          ? nextMonthStartMs(nowMs)
          : undefined
        : dayRetryAtMs(buckets, nowMs, prices, check.measure, check.need, limit);
    const when = retryAtMs === undefined ? "until the quota is raised" : `until ${new Date(retryAtMs).toISOString()}`;
    const verdict: QuotaVerdict = {
      quota: check.quota,
      text: `The principal ${options.principal} used ${describe(check.quota, used, limit)}; the task waits ${when}.`,
    };
    if (retryAtMs !== undefined) verdict.retryAtMs = retryAtMs;
    return verdict;
  }
  return undefined;
}

/** The first hour's edge at which the rolling day's use plus `need` is under `limit`, if any is. */
function dayRetryAtMs(
  buckets: readonly UsageBucket[],
  nowMs: number,
  prices: Readonly<Record<string, ModelPrice>>,
  measure: "tokens" | "costUsd",
  need: number,
  limit: number,
): number | undefined {
  const hour = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  for (let k = 1; k <= DAY_HOURS; k++) {
    const edge = hour + k * HOUR_MS;
    if (sumFrom(buckets, dayWindowStartMs(edge), prices)[measure] + need < limit) return edge;
  }
  return undefined;
}
