import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dueAction, durationMs, listingBounds, type RetentionPolicy, retentionPolicySchema } from "./policy.ts";

const STATUSES = ["created", "running", "parked", "completed", "failed", "cancelled"] as const;
const rule = fc.record(
  {
    olderThan: fc.constantFrom("0ms", "1s", "90m", "12h", "30d", "2w"),
    statuses: fc.subarray(["completed", "failed", "cancelled"] as const, { minLength: 1 }),
    action: fc.constantFrom("delete" as const, "archive" as const),
  },
  { requiredKeys: ["olderThan"] },
);
const ruleOrKeep = fc.oneof(rule, fc.constant("keep" as const));
const policy: fc.Arbitrary<RetentionPolicy> = fc.record(
  {
    default: rule,
    agents: fc.dictionary(fc.constantFrom("a1", "a2"), ruleOrKeep),
    principals: fc.dictionary(fc.constantFrom("p1", "p2"), ruleOrKeep),
  },
  { requiredKeys: [] },
);
const task = fc.record(
  {
    principal: fc.constantFrom("p1", "p2", "p3"),
    agent: fc.constantFrom("a1", "a2", "a3"),
    status: fc.constantFrom(...STATUSES),
    updatedAt: fc.integer({ min: 0, max: 4e12 }).map((ms) => new Date(ms).toISOString()),
  },
  { requiredKeys: ["principal", "status", "updatedAt"] },
);
const now = fc.integer({ min: 0, max: 5e12 });

describe("retention policy", () => {
  it("is due only for a finished task, and stays due as time passes", () => {
    fc.assert(
      fc.property(policy, task, now, fc.integer({ min: 0, max: 1e12 }), (p, t, nowMs, later) => {
        const action = dueAction(p, t, nowMs);
        if (action !== undefined) {
          expect(["completed", "failed", "cancelled"]).toContain(t.status);
          expect(dueAction(p, t, nowMs + later)).toBe(action);
        }
      }),
    );
  });

  it("lists widely enough: every due task is within the listing bounds", () => {
    fc.assert(
      fc.property(policy, task, now, (p, t, nowMs) => {
        if (dueAction(p, t, nowMs) === undefined) return;
        const bounds = listingBounds(p);
        expect(bounds).toBeDefined();
        expect(bounds?.statuses).toContain(t.status);
        expect(Date.parse(t.updatedAt)).toBeLessThanOrEqual(nowMs - (bounds?.olderThanMs ?? 0));
      }),
    );
  });

  it("takes the principal's rule over the agent's over the store-wide one; keep is never due", () => {
    const p: RetentionPolicy = {
      default: { olderThan: "1d" },
      agents: { a1: { olderThan: "0ms", action: "archive" }, a2: "keep" },
      principals: { p1: "keep" },
    };
    const old = { status: "completed", updatedAt: new Date(0).toISOString() };
    const at = 10 * 86_400_000;
    expect(dueAction(p, { ...old, principal: "p1", agent: "a1" }, at)).toBeUndefined();
    expect(dueAction(p, { ...old, principal: "p2", agent: "a1" }, at)).toBe("archive");
    expect(dueAction(p, { ...old, principal: "p2", agent: "a2" }, at)).toBeUndefined();
    expect(dueAction(p, { ...old, principal: "p2" }, at)).toBe("delete");
    expect(dueAction(p, { ...old, principal: "p2" }, 86_400_000 - 1)).toBeUndefined();
  });

  it("parses ages and refuses what is not one, naming the field", () => {
    expect(durationMs("30d")).toBe(30 * 86_400_000);
    expect(durationMs("90m")).toBe(5_400_000);
    const bad = retentionPolicySchema.safeParse({
      default: { olderThan: "30 days" },
      agents: { a: { olderThan: "1x" } },
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path.join("."))).toEqual(["default.olderThan", "agents.a.olderThan"]);
    expect(retentionPolicySchema.safeParse({ default: { olderThan: "1d", statuses: ["running"] } }).success).toBe(
      false,
    );
    expect(retentionPolicySchema.safeParse({ default: { olderThan: "1d" }, extra: 1 }).success).toBe(false);
  });
});
