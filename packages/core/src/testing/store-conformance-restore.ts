/**
 * The restore part of the store conformance suite, for stores with `restoreTask` (`sema migrate`):
 * a log copied from another store reads back exactly as it was stored, with the same summary,
 * times and input index, and a log that is not one task's gapless, valid log is refused.
 */
import type { Store } from "../ports/store.ts";
import type { StoredEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

export function restoreConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, expectCode } = context;

  describe("restore", () => {
    it("writes a copied log exactly as it was stored: events, times, summary, inputs", async () => {
      const source = await fresh();
      const target = await fresh();
      if (target.restoreTask === undefined) return;
      const [first] = await source.createTask({
        created: { ...make.created("p9", "Restore the Ünïcode objective"), agent: "mover" },
      });
      const id = first?.taskId ?? "";
      await source.append(id, [make.legStarted("l1"), make.input("received", "steer", "in-1", "héllo \u0000")], {
        expectedSeq: 1,
      });
      await source.append(id, [make.turn(1, "ok"), make.legEnded("l1", "parked:input")], { expectedSeq: 3 });
      // Times a second apart, as a log written over a while has them: a restore that took the
      // first event's time for the last, or its own clock's, shows (no wait on the real clock).
      const base = Date.parse("2026-11-02T10:00:00.000Z");
      const events = (await source.read(id)).map((event) => ({
        ...event,
        at: new Date(base + (event.seq - 1) * 1000).toISOString(),
      }));
      const record = await target.restoreTask(events);
      const original = {
        ...withoutLease(await source.getTask(id)),
        createdAt: events[0]?.at,
        updatedAt: events.at(-1)?.at,
      };
      expect(record).toEqual(original);
      expect(await target.read(id)).toEqual(events);
      expect(await target.findInput(id, "in-1")).toEqual(events[2]);
      expect(await target.getTask(id)).toEqual(original);
      expect((await target.listTasks({ principal: "p9" })).tasks.map((task) => task.taskId)).toEqual([id]);
      // The list's filters find it as they find a task created there: agent and objective text.
      const found = await target.listTasks({ principal: "p9", agent: "mover", objectiveContains: "ünïcode" });
      expect(found.tasks.map((task) => task.taskId)).toEqual([id]);
      // It continues as any task: the next append follows the copied log.
      await target.append(id, [make.note("after")], { expectedSeq: 5 });
      await expectCode(target.restoreTask(events), "TaskExists");
    });

    it("refuses a log that is not one task's gapless, valid log, writing nothing", async () => {
      const store: Store = await fresh();
      if (store.restoreTask === undefined) return;
      const id = "0193a000-0000-7000-8000-00000000abcd";
      const at = "2026-12-01T00:00:00.000Z";
      const created = { taskId: id, seq: 1, at, ...make.created() } as StoredEvent;
      const note = (seq: number, taskId = id) => ({ taskId, seq, at, ...make.note() }) as StoredEvent;
      await expectCode(store.restoreTask([]), "InvalidInput");
      await expectCode(store.restoreTask([note(1)]), "InvalidInput");
      await expectCode(store.restoreTask([created, note(3)]), "InvalidInput");
      await expectCode(store.restoreTask([created, note(2, "other")]), "InvalidInput");
      await expectCode(store.restoreTask([created, { ...note(2), v: 9 } as unknown as StoredEvent]), "InvalidEvent");
      await expectCode(store.getTask(id), "TaskNotFound");
      expect((await store.restoreTask([created, note(2)])).lastSeq).toBe(2);
    });
  });
}

function withoutLease<T extends { lease?: unknown }>(record: T): Omit<T, "lease"> {
  const { lease: _lease, ...rest } = record;
  return rest;
}
