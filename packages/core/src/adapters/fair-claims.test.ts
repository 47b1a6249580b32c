import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_SUMMARY } from "../core/task-summary.ts";
import type { TaskRecord } from "../ports/store.ts";
import { fairOrder, limitPerPrincipal } from "./fair-claims.ts";

const principals = ["a", "b", "c", "__proto__", "constructor"];

function record(taskId: string, principal: string): TaskRecord {
  const at = "2026-01-01T00:00:00.000Z";
  return { taskId, principal, lastSeq: 1, createdAt: at, updatedAt: at, summary: EMPTY_SUMMARY };
}

const candidates = fc
  .array(fc.constantFrom(...principals), { maxLength: 40 })
  .map((owners) => owners.map((principal, i) => record(`t${i}`, principal)));
const held = fc.dictionary(fc.constantFrom(...principals), fc.nat({ max: 5 }), { noNullPrototype: false });
const max = fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined });

describe("fairOrder", () => {
  it("property: each next task is the oldest of a principal holding fewest, none past the cap, each once", () => {
    fc.assert(
      fc.property(candidates, held, max, (listed, heldCounts, maxPerPrincipal) => {
        const fairness = maxPerPrincipal === undefined ? { held: heldCounts } : { held: heldCounts, maxPerPrincipal };
        const order = fairOrder(listed, fairness);
        const counts = new Map(principals.map((p) => [p, Object.hasOwn(heldCounts, p) ? (heldCounts[p] ?? 0) : 0]));
        const left = [...listed];
        for (const task of order) {
          const eligible = left.filter((t) => (counts.get(t.principal) ?? 0) < (maxPerPrincipal ?? Infinity));
          const fewest = Math.min(...eligible.map((t) => counts.get(t.principal) ?? 0));
          // The oldest eligible task among the principals holding fewest.
          expect(task).toBe(eligible.find((t) => counts.get(t.principal) === fewest));
          counts.set(task.principal, (counts.get(task.principal) ?? 0) + 1);
          left.splice(left.indexOf(task), 1);
        }
        // Nothing eligible was left out.
        expect(left.filter((t) => (counts.get(t.principal) ?? 0) < (maxPerPrincipal ?? Infinity))).toEqual([]);
      }),
      { numRuns: 1_000 },
    );
  });

  it("a principal named __proto__ is counted like any other", () => {
    const listed = [record("p1", "__proto__"), record("p2", "__proto__"), record("b1", "b")];
    // An own "__proto__" key, as JSON.parse makes one.
    const heldCounts = JSON.parse('{"__proto__": 3}') as Record<string, number>;
    expect(fairOrder(listed, { held: heldCounts }).map((t) => t.taskId)).toEqual(["b1", "p1", "p2"]);
    expect(fairOrder(listed, { held: heldCounts, maxPerPrincipal: 3 }).map((t) => t.taskId)).toEqual(["b1"]);
  });
});

describe("limitPerPrincipal", () => {
  it("keeps the oldest perPrincipal of each principal, none excluded, at most limit", () => {
    const listed = ["a", "a", "a", "b", "__proto__", "__proto__", "c"].map((p, i) => record(`t${i}`, p));
    const ids = (options: Parameters<typeof limitPerPrincipal>[1], limit = 100) =>
      limitPerPrincipal(listed, options, limit).map((t) => t.taskId);
    expect(ids({ perPrincipal: 1 })).toEqual(["t0", "t3", "t4", "t6"]);
    expect(ids({ perPrincipal: 2, excludePrincipals: ["__proto__"] })).toEqual(["t0", "t1", "t3", "t6"]);
    expect(ids({}, 2)).toEqual(["t0", "t1"]);
  });
});
