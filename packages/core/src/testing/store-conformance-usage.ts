/**
 * The usage part of the store conformance suite (quotas per principal): every `model_turn`
 * appended moves its principal's counter of the hour, per model, in the same transaction (an
 * append refused counts nothing); `activeTasks` counts a principal's root tasks created or running;
 * `maxActiveTasks` refuses a creation past it atomically, however many race for the last slot.
 */
import type { Store, UsageBucket } from "../ports/store.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

type UsageStore = Store & Required<Pick<Store, "usage">>;
const HOUR = 3_600_000;

function turn(sessionSeq: number, inputTokens: number, outputTokens: number, model?: string): TaskEvent {
  const event = { ...make.turn(sessionSeq), usage: { inputTokens, outputTokens, cachedInputTokens: 1 } };
  return model === undefined ? event : { ...event, model };
}

function totals(buckets: readonly UsageBucket[]): Record<string, [number, number, number, number]> {
  const out: Record<string, [number, number, number, number]> = {};
  for (const b of buckets) {
    const [i, c, o, t] = out[b.model] ?? [0, 0, 0, 0];
    out[b.model] = [i + b.inputTokens, c + b.cachedInputTokens, o + b.outputTokens, t + b.turns];
  }
  return out;
}

export function usageConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, expectCode } = context;
  async function usageStore(): Promise<UsageStore> {
    const store = await fresh();
    expect(typeof store.usage, "the store has usage").toBe("function");
    return store as UsageStore;
  }
  async function createWithModel(store: Store, principal: string, model: string): Promise<string> {
    const [created] = await store.createTask({ created: { ...make.created(principal), model } });
    if (created === undefined) throw new Error("createTask returned no event");
    return created.taskId;
  }

  describe("usage counters", () => {
    it("counts each model turn under its principal, its hour and its model (the task's unless the turn names one)", async () => {
      const store = await usageStore();
      const since = Date.now() - HOUR;
      const a = await createWithModel(store, "alice", "prov:m1");
      await store.append(a, [turn(1, 100, 10), make.note("no usage")], { expectedSeq: 1 });
      await store.append(a, [turn(2, 50, 5), turn(3, 7, 3, "prov:m2")], { expectedSeq: 3 });
      const b = await createWithModel(store, "bob", "prov:m1");
      await store.append(b, [turn(1, 1000, 1)], { expectedSeq: 1 });
      const alice = await store.usage({ principal: "alice", sinceMs: since });
      expect(totals(alice.buckets)).toEqual({ "prov:m1": [150, 2, 15, 2], "prov:m2": [7, 1, 3, 1] });
      for (const bucket of alice.buckets) {
        expect(bucket.hour).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
        expect(Date.parse(bucket.hour)).toBeLessThanOrEqual(Date.now());
      }
      expect(totals((await store.usage({ principal: "bob", sinceMs: since })).buckets)).toEqual({
        "prov:m1": [1000, 1, 1, 1],
      });
      expect((await store.usage({ principal: "carol", sinceMs: since })).buckets).toEqual([]);
      // Buckets before `sinceMs`'s hour are not returned.
      expect((await store.usage({ principal: "alice", sinceMs: Date.now() + 2 * HOUR })).buckets).toEqual([]);
    });

    it("counts in the append's transaction: an append refused counts nothing", async () => {
      const store = await usageStore();
      const a = await createWithModel(store, "alice", "m");
      await store.append(a, [turn(1, 10, 1)], { expectedSeq: 1 });
      await expectCode(store.append(a, [turn(2, 500, 50)], { expectedSeq: 1 }), "SeqConflict");
      const bad = { ...make.note("x"), kind: "" } as TaskEvent;
      await expectCode(store.append(a, [turn(2, 500, 50), bad], { expectedSeq: 2 }), "InvalidEvent");
      const usage = await store.usage({ principal: "alice", sinceMs: Date.now() - HOUR });
      expect(totals(usage.buckets)).toEqual({ m: [10, 1, 1, 1] });
    });

    it("counts active root tasks: created or running, not parked, ended or children", async () => {
      const store = await usageStore();
      const created = await createWithModel(store, "alice", "m");
      const running = await createWithModel(store, "alice", "m");
      await store.append(running, [make.legStarted("l1")], { expectedSeq: 1 });
      const parked = await createWithModel(store, "alice", "m");
      await store.append(parked, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
      const done = await createWithModel(store, "alice", "m");
      const completed: TaskEvent = { type: "task_completed", v: 1, result: "ok" };
      await store.append(done, [make.legStarted("l1"), completed, make.legEnded("l1", "completed")], {
        expectedSeq: 1,
      });
      await store.createTask({ created: { ...make.created("alice"), parentTaskId: created } });
      await createWithModel(store, "bob", "m");
      expect((await store.usage({ principal: "alice", sinceMs: Date.now() })).activeTasks).toBe(2);
    });

    it("refuses a creation past maxActiveTasks with QuotaExceeded, writing nothing, however many race", async () => {
      const store = await usageStore();
      await createWithModel(store, "alice", "m");
      const refused = await expectCode(
        store.createTask({ taskId: "over", created: make.created("alice"), maxActiveTasks: 1 }),
        "QuotaExceeded",
      );
      expect(refused).toMatchObject({ quota: "concurrentTasks", used: 1, limit: 1 });
      await expectCode(store.getTask("over"), "TaskNotFound");
      // Another principal, and a child, are not held by alice's count.
      await store.createTask({ created: make.created("bob"), maxActiveTasks: 1 });
      const racing = await Promise.allSettled(
        Array.from({ length: 6 }, () => store.createTask({ created: make.created("carol"), maxActiveTasks: 2 })),
      );
      expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(2);
      expect((await store.usage({ principal: "carol", sinceMs: Date.now() })).activeTasks).toBe(2);
    });
  });
}
