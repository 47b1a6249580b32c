import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { UsageBucket } from "../../ports/store.ts";
import { quotaResolver, tightestQuotas } from "./quota-settings.ts";
import { dayWindowStartMs, quotasSchema, quotaUsage, quotaVerdict, usageSinceMs } from "./quotas.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-12-10T12:30:00.000Z");

function bucket(hourMs: number, tokens: number, model = "m"): UsageBucket {
  return {
    hour: new Date(Math.floor(hourMs / HOUR) * HOUR).toISOString(),
    model,
    inputTokens: tokens,
    cachedInputTokens: 0,
    outputTokens: 0,
    turns: 1,
  };
}

describe("quota windows", () => {
  it("the rolling day is the last 24 whole hours, the month is the calendar month (UTC)", () => {
    expect(new Date(dayWindowStartMs(T0)).toISOString()).toBe("2026-12-09T13:00:00.000Z");
    expect(new Date(usageSinceMs(T0)).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    // Early in a month the day window reaches back into the last one.
    expect(new Date(usageSinceMs(Date.parse("2026-12-01T05:00:00Z"))).toISOString()).toBe("2026-11-30T06:00:00.000Z");
    const buckets = [bucket(T0 - 24 * HOUR, 100), bucket(T0 - 23 * HOUR, 10), bucket(T0, 1)];
    expect(quotaUsage(buckets, T0).day.tokens).toBe(11);
    expect(quotaUsage(buckets, T0).month.tokens).toBe(111);
    // An hour later the 10 have left the day too.
    expect(quotaUsage(buckets, T0 + HOUR).day.tokens).toBe(1);
  });

  it("prices the buckets by the table, a model without a price at nothing", () => {
    const buckets = [bucket(T0, 1_000_000, "openai:gpt-x"), bucket(T0, 1_000_000, "free")];
    const usage = quotaUsage(buckets, T0, { "gpt-x": { input: 2, output: 8 } });
    expect(usage.day).toEqual({ tokens: 2_000_000, costUsd: 2 });
  });

  it("names the day quota and allows the call at the hour's edge where enough has left the window", () => {
    const buckets = [bucket(T0 - 23 * HOUR, 600), bucket(T0 - 20 * HOUR, 300), bucket(T0, 50)];
    const verdict = quotaVerdict({
      principal: "alice",
      quotas: { tokensPerDay: 1000 },
      buckets,
      nowMs: T0,
      call: { modelId: "m", inputTokens: 100 },
    });
    // 950 used + 100 ≥ 1000; at 13:00 the 600 leave: 350 + 100 < 1000.
    expect(verdict).toEqual({
      quota: "tokensPerDay",
      text: "The principal alice used 950 of its 1000 tokens per day (the last 24 hours); the task waits until 2026-12-10T13:00:00.000Z.",
      retryAtMs: Date.parse("2026-12-10T13:00:00.000Z"),
    });
    expect(
      quotaVerdict({
        principal: "a",
        quotas: { tokensPerDay: 2000 },
        buckets,
        nowMs: T0,
        call: { modelId: "m", inputTokens: 100 },
      }),
    ).toBeUndefined();
  });

  it("a month quota allows the call at the next month; a call larger than the quota never", () => {
    const buckets = [bucket(Date.parse("2026-12-01T00:00:00Z"), 900)];
    const call = { modelId: "m", inputTokens: 200 };
    const verdict = quotaVerdict({ principal: "a", quotas: { tokensPerMonth: 1000 }, buckets, nowMs: T0, call });
    expect(verdict).toMatchObject({ quota: "tokensPerMonth", retryAtMs: Date.parse("2027-01-01T00:00:00Z") });
    const never = quotaVerdict({
      principal: "a",
      quotas: { tokensPerDay: 100 },
      buckets: [],
      nowMs: T0,
      call: { modelId: "m", inputTokens: 150 },
    });
    expect(never).toMatchObject({ quota: "tokensPerDay" });
    expect(never?.retryAtMs).toBeUndefined();
    expect(never?.text).toContain("until the quota is raised");
  });

  it("a dollar quota counts the call's input at the input price", () => {
    const prices = { m: { input: 10, output: 30 } };
    const buckets = [bucket(T0, 90_000)];
    const verdict = quotaVerdict({
      principal: "a",
      quotas: { costUsdPerMonth: 1 },
      buckets,
      nowMs: T0,
      prices,
      call: { modelId: "m", inputTokens: 10_000 },
    });
    expect(verdict).toMatchObject({
      quota: "costUsdPerMonth",
      text: expect.stringContaining("$0.9000 of its $1 per month"),
    });
  });

  it("property: a verdict's retry time is an hour edge after now where the call fits, and none earlier", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 500 })), { maxLength: 20 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 400 }),
        (spends, limit, need) => {
          const buckets = spends.map(([hoursAgo, tokens]) => bucket(T0 - hoursAgo * HOUR, tokens));
          const call = { modelId: "m", inputTokens: need };
          const at = (nowMs: number) =>
            quotaVerdict({ principal: "p", quotas: { tokensPerDay: limit }, buckets, nowMs, call });
          const verdict = at(T0);
          const fits = quotaUsage(buckets, T0).day.tokens + need < limit;
          expect(verdict === undefined).toBe(fits);
          if (verdict?.retryAtMs === undefined) return;
          expect(verdict.retryAtMs % HOUR).toBe(0);
          expect(verdict.retryAtMs).toBeGreaterThan(T0);
          expect(at(verdict.retryAtMs)).toBeUndefined();
          expect(at(verdict.retryAtMs - 1)).toBeDefined();
        },
      ),
    );
  });

  it("the schema refuses unknown keys and non-positive limits", () => {
    expect(quotasSchema.safeParse({ tokensPerDay: 10, concurrentTasks: 2 }).success).toBe(true);
    expect(quotasSchema.safeParse({ tokensPerday: 10 }).success).toBe(false);
    expect(quotasSchema.safeParse({ concurrentTasks: 0 }).success).toBe(false);
    expect(quotasSchema.safeParse({ tokensPerMonth: 1.5 }).success).toBe(false);
  });
});

describe("quotas from the settings and the principal's tokens", () => {
  it("the tightest per key wins; revoked tokens and other principals' do not count; read once per ttl", async () => {
    let now = T0;
    let reads = 0;
    const records = [
      { principal: "acme", quotas: { tokensPerDay: 500, concurrentTasks: 9 } },
      { principal: "acme", revokedAt: "2026-12-01T00:00:00.000Z", quotas: { tokensPerDay: 1 } },
      { principal: "globex", quotas: { tokensPerDay: 2 } },
      { principal: "acme" },
    ];
    const tokens = {
      list: async () => {
        reads++;
        return records;
      },
    };
    const resolve = quotaResolver({ default: { tokensPerDay: 1000, concurrentTasks: 3 } }, { tokens, now: () => now });
    expect(await resolve("acme")).toEqual({ tokensPerDay: 500, concurrentTasks: 3 });
    expect(await resolve("initech")).toEqual({ tokensPerDay: 1000, concurrentTasks: 3 });
    expect(reads).toBe(1);
    records.push({ principal: "acme", quotas: { tokensPerDay: 50, concurrentTasks: 9 } });
    now += 5000;
    expect(await resolve("acme")).toEqual({ tokensPerDay: 50, concurrentTasks: 3 });
    expect(reads).toBe(2);
    // A token's quotas apply with no settings at all.
    expect(await quotaResolver(undefined, { tokens })("globex")).toEqual({ tokensPerDay: 2 });
    expect(tightestQuotas([undefined, undefined])).toBeUndefined();
  });
});
