/**
 * The fairness part of the store conformance suite: runnable tasks are listed a few per
 * principal, so a flood of one principal's old tasks cannot hide another's, and a fair claim
 * interleaves principals (fewest held first) within a per-principal cap.
 */
import type { ConformanceContext } from "./store-conformance-live.ts";

export function fairnessConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, newTask } = context;
  describe("fairness between principals", () => {
    it("lists at most perPrincipal tasks of each principal, oldest first, none of excludePrincipals", async () => {
      const store = await fresh();
      const a = [];
      for (let i = 0; i < 30; i++) a.push(await newTask(store, "a"));
      const b = [await newTask(store, "b"), await newTask(store, "b")];
      const c = await newTask(store, "c");
      const ids = async (options: Parameters<typeof store.listRunnable>[0]) =>
        (await store.listRunnable(options)).map((record) => record.taskId);
      expect(await ids({ perPrincipal: 2 })).toEqual([a[0], a[1], ...b, c]);
      expect(await ids({ perPrincipal: 1, excludePrincipals: ["b"] })).toEqual([a[0], c]);
      expect(await ids({ perPrincipal: 3, limit: 4 })).toEqual([a[0], a[1], a[2], b[0]]);
      expect(await ids({ excludePrincipals: ["a", "c"] })).toEqual(b);
    });

    it("claims fairly: fewest held first, oldest among equals, never past maxPerPrincipal", async () => {
      const store = await fresh();
      const a = [];
      for (let i = 0; i < 30; i++) a.push(await newTask(store, "a"));
      const b = [await newTask(store, "b"), await newTask(store, "b")];
      const c = await newTask(store, "c");
      const claim = async (limit: number, fairness: { held?: Record<string, number>; maxPerPrincipal?: number }) =>
        (await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000, limit, fairness })).map(
          (taken) => taken.task.taskId,
        );
      // a holds two already: b and c, which hold none, go first, then whoever holds fewest.
      expect(await claim(3, { held: { a: 2 } })).toEqual([b[0], c, b[1]]);
      // Nothing left of b or c; a may reach its cap of 4 and no further.
      expect(await claim(5, { held: { a: 2, b: 2, c: 1 }, maxPerPrincipal: 4 })).toEqual([a[0], a[1]]);
      expect(await claim(5, { held: { a: 4 }, maxPerPrincipal: 4 })).toEqual([]);
      // With no one else waiting and no cap, a fair claim takes the oldest.
      expect(await claim(2, {})).toEqual([a[2], a[3]]);
    });
  });
}
