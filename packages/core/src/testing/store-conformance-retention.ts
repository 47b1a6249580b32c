/**
 * The retention part of the store conformance suite, for stores with `deleteTask`, `listFinished`
 * and `stats`: a finished task goes whole (log, summary, snapshot, inputs, its children, blobs
 * nobody else references; usage counters keep their totals), a live one is never touched, and
 * the listing and the sizes agree with what is stored.
 */
import type { Store } from "../ports/store.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

type RetentionStore = Store & Required<Pick<Store, "deleteTask" | "listFinished" | "stats">>;

const completed: TaskEvent[] = [
  make.legStarted("l1"),
  { type: "task_completed", v: 1, result: "ok" },
  make.legEnded("l1"),
];

/** A turn with usage, so the store's usage counters move. */
const turn: TaskEvent = {
  ...make.turn(1, "ok", [], "l1"),
  usage: { inputTokens: 10, outputTokens: 5 },
} as TaskEvent;

export function retentionConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, newTask, expectCode } = context;
  async function retentionStore(): Promise<RetentionStore | undefined> {
    const store = await fresh();
    if (store.deleteTask === undefined) return undefined;
    expect(typeof store.listFinished, "a store with deleteTask has listFinished").toBe("function");
    expect(typeof store.stats, "a store with deleteTask has stats").toBe("function");
    return store as RetentionStore;
  }
  async function finishedTask(store: Store, principal = "p1", end: TaskEvent[] = completed): Promise<string> {
    const id = await newTask(store, principal);
    await store.append(id, end, { expectedSeq: 1 });
    return id;
  }

  describe("retention", () => {
    it("deletes a finished task whole and leaves the others and the usage totals alone", async () => {
      const store = await retentionStore();
      if (store === undefined) return;
      const id = await newTask(store);
      await store.append(id, [make.legStarted("l1"), make.input("received", "steer", "in-1"), turn], {
        expectedSeq: 1,
      });
      await store.putSnapshot({ taskId: id, seq: 3, v: 1, state: { any: "thing" } });
      await store.append(id, [{ type: "task_completed", v: 1, result: "ok" }, make.legEnded("l1")], { expectedSeq: 4 });
      const other = await finishedTask(store);
      const usageBefore = await store.usage?.({ principal: "p1", sinceMs: 0 });
      const before = await store.stats();
      const deleted = await store.deleteTask(id);
      expect(deleted).toMatchObject({ taskIds: [id], events: 6, blobs: [] });
      expect(deleted.logBytes).toBeGreaterThan(0);
      await expectCode(store.getTask(id), "TaskNotFound");
      await expectCode(store.read(id), "TaskNotFound");
      await expectCode(store.findInput(id, "in-1"), "TaskNotFound");
      await expectCode(store.latestSnapshot(id), "TaskNotFound");
      await expectCode(store.deleteTask(id), "TaskNotFound");
      expect((await store.read(other)).length).toBe(4);
      // Counters are totals per principal and hour: what the task spent stays spent.
      if (usageBefore !== undefined) {
        expect((await store.usage?.({ principal: "p1", sinceMs: 0 }))?.buckets).toEqual(usageBefore.buckets);
      }
      const after = await store.stats();
      expect(after.tasks.completed).toBe(before.tasks.completed - 1);
      expect(after.events).toBe((before.events ?? 0) - deleted.events);
      expect(after.logBytes).toBe((before.logBytes ?? 0) - deleted.logBytes);
      // The id can be used again: nothing of the old task is left to collide with.
      await store.createTask({ taskId: id, created: make.created() });
      expect((await store.read(id)).length).toBe(1);
    });

    it("refuses a live task, whatever makes it live, and deletes nothing", async () => {
      const store = await retentionStore();
      if (store === undefined) return;
      const created = await newTask(store);
      const running = await newTask(store);
      await store.append(running, [make.legStarted("l1")], { expectedSeq: 1 });
      const parked = await newTask(store);
      await store.append(parked, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
      const leased = await finishedTask(store);
      await store.acquireLease(leased, { holder: { id: "w" }, ttlMs: 60_000 });
      const pending = await finishedTask(store);
      await store.append(pending, [make.input("received", "wake", "late")], { expectedSeq: 4 });
      for (const id of [created, running, parked, leased, pending]) {
        const before = await store.read(id);
        const error = await expectCode(store.deleteTask(id), "TaskLive");
        expect((error as { isRetryable: boolean }).isRetryable).toBe(false);
        expect(await store.read(id)).toEqual(before);
      }
    });

    it("deletes a family together, and never one with a live member or a live ancestor", async () => {
      const store = await retentionStore();
      if (store === undefined) return;
      const parent = await newTask(store);
      await store.append(parent, [make.legStarted("l1"), make.legEnded("l1", "parked:child")], { expectedSeq: 1 });
      const [child] = await store.createTask({ created: { ...make.created(), parentTaskId: parent } });
      const childId = child?.taskId ?? "";
      const [grandchild] = await store.createTask({ created: { ...make.created(), parentTaskId: childId } });
      const grandchildId = grandchild?.taskId ?? "";
      // The parent is live (parked on its child), so no member goes.
      await expectCode(store.deleteTask(parent), "TaskLive");
      await expectCode(store.deleteTask(grandchildId), "TaskLive");
      for (const id of [grandchildId, childId]) {
        await store.append(id, [...completed, { type: "parent_notified", v: 1 }], { expectedSeq: 1 });
      }
      await expectCode(store.deleteTask(grandchildId), "TaskLive");
      await store.append(parent, [{ type: "task_cancelled", v: 1 }], { expectedSeq: 3 });
      const deleted = await store.deleteTask(parent);
      expect(deleted.taskIds).toEqual([parent, childId, grandchildId]);
      for (const id of deleted.taskIds) await expectCode(store.getTask(id), "TaskNotFound");
    });

    it("deletes the blobs no other task references, and keeps the shared ones", async () => {
      const store = await retentionStore();
      if (store === undefined || store.putBlob === undefined || store.getBlob === undefined) return;
      const shared = { digest: "a".repeat(64), bytes: Uint8Array.from([1]) };
      const own = { digest: "b".repeat(64), bytes: Uint8Array.from([2, 3]) };
      await store.putBlob(shared);
      await store.putBlob(own);
      const withBlobs = (digests: string[], inputId: string): TaskEvent => ({
        type: "human_input",
        v: 2,
        inputId,
        carrier: "steer",
        source: "user",
        delivery: "parked",
        sessionSeq: 0,
        text: "look",
        attachments: digests.map((digest) => ({ type: "image", digest, mediaType: "image/png", size: 1 })),
      });
      const first = await newTask(store);
      await store.append(first, [withBlobs([shared.digest, own.digest], "i1"), { type: "task_cancelled", v: 1 }], {
        expectedSeq: 1,
      });
      const second = await newTask(store, "p2");
      await store.append(second, [withBlobs([shared.digest], "i2"), { type: "task_cancelled", v: 1 }], {
        expectedSeq: 1,
      });
      const blobsBefore = (await store.stats()).blobs;
      expect((await store.deleteTask(first)).blobs).toEqual([own.digest]);
      expect(await store.getBlob(own.digest)).toBeUndefined();
      expect(await store.getBlob(shared.digest)).toBeDefined();
      expect((await store.stats()).blobs).toBe(blobsBefore - 1);
      expect((await store.deleteTask(second)).blobs).toEqual([shared.digest]);
      expect(await store.getBlob(shared.digest)).toBeUndefined();
    });

    it("lists finished root tasks oldest change first, by status, principal and time, a page at a time", async () => {
      const store = await retentionStore();
      if (store === undefined) return;
      const done = await finishedTask(store, "p1");
      const failed = await finishedTask(store, "p2", [
        { type: "task_failed", v: 1, error: { code: "ModelError", message: "boom" } },
      ]);
      const cancelled = await finishedTask(store, "p1", [{ type: "task_cancelled", v: 1 }]);
      const [child] = await store.createTask({ created: { ...make.created(), parentTaskId: done } });
      await store.append(child?.taskId ?? "", [...completed], { expectedSeq: 1 });
      await newTask(store, "p1");
      const later = Date.now() + 60_000;
      const all = await store.listFinished({ updatedBeforeMs: later });
      expect(all.tasks.map((task) => task.taskId).sort()).toEqual([done, failed, cancelled].sort());
      const order = all.tasks.map((task) => `${task.updatedAt} ${task.taskId}`);
      expect(order).toEqual([...order].sort());
      const ids = async (options: Parameters<RetentionStore["listFinished"]>[0]) =>
        (await store.listFinished(options)).tasks.map((task) => task.taskId).sort();
      expect(await ids({ updatedBeforeMs: later, principal: "p1" })).toEqual([done, cancelled].sort());
      expect(await ids({ updatedBeforeMs: later, statuses: ["failed", "cancelled"] })).toEqual(
        [failed, cancelled].sort(),
      );
      expect(await ids({ updatedBeforeMs: Date.parse(all.tasks[0]?.updatedAt ?? "") })).toEqual([]);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listFinished(
          cursor === undefined ? { updatedBeforeMs: later, limit: 1 } : { updatedBeforeMs: later, limit: 1, cursor },
        );
        seen.push(...page.tasks.map((task) => task.taskId));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(seen).toEqual(all.tasks.map((task) => task.taskId));
      await expectCode(store.listFinished({ updatedBeforeMs: later, limit: 0 }), "InvalidInput");
      await expectCode(store.listFinished({ updatedBeforeMs: later, cursor: "nope" }), "InvalidInput");
      await expectCode(
        store.listFinished({ updatedBeforeMs: later, statuses: ["running" as "failed"] }),
        "InvalidInput",
      );
    });

    it("measures tasks by status, events, log bytes, the largest tasks and each principal's share", async () => {
      const store = await retentionStore();
      if (store === undefined) return;
      const small = await finishedTask(store, "p1");
      const big = await newTask(store, "p2");
      await store.append(big, [make.note("x".repeat(5000))], { expectedSeq: 1 });
      const stats = await store.stats({ largest: 1 });
      expect(stats.tasks).toMatchObject({ created: 1, completed: 1, running: 0, parked: 0, failed: 0, cancelled: 0 });
      expect(stats.events).toBe(6);
      expect(stats.largest?.map((task) => task.taskId)).toEqual([big]);
      expect(stats.largest?.[0]).toMatchObject({ principal: "p2", status: "created", events: 2 });
      expect(stats.largest?.[0]?.logBytes).toBeGreaterThan(5000);
      expect(stats.principals?.map((share) => share.principal)).toEqual(["p2", "p1"]);
      expect(stats.principals?.reduce((sum, share) => sum + share.logBytes, 0)).toBe(stats.logBytes);
      const mine = await store.stats({ principal: "p1" });
      expect(mine.tasks.completed).toBe(1);
      expect(mine.tasks.created).toBe(0);
      expect(mine.events).toBe(4);
      expect(mine.largest?.map((task) => task.taskId)).toEqual([small]);
      const counts = await store.stats({ events: false });
      expect(counts.events).toBeUndefined();
      expect(counts.largest).toBeUndefined();
      expect(counts.tasks).toEqual(stats.tasks);
      await expectCode(store.stats({ largest: -1 }), "InvalidInput");
    });
  });
}
