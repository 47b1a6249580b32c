/**
 * The time-travel part of the store conformance suite: a task recorded on the store forks at every
 * seq with its prefix intact and the source untouched, replays with every model request identical
 * to the recorded one, and survives export and import into another store. A fork's copied turns
 * are not counted again in the principal's usage.
 */
import { MemoryStore } from "../adapters/memory-store.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { exportTask } from "../time-travel/export-task.ts";
import { forkTask } from "../time-travel/fork-task.ts";
import { importTask } from "../time-travel/import-task.ts";
import { replayTask } from "../time-travel/replay-task.ts";
import { recordTrip } from "./sample-trip.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

function body(event: StoredEvent): TaskEvent {
  const { taskId: _t, seq: _s, at: _a, ...rest } = event;
  return rest as TaskEvent;
}

export function timeTravelConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh } = context;
  describe("time travel", () => {
    it("forks a recorded task at every seq: the prefix copied, the source untouched, no usage counted twice", async () => {
      const store = await fresh();
      const { taskId } = await recordTrip(store);
      const source = await store.read(taskId);
      const before = JSON.stringify(source);
      const usage = await store.usage?.({ principal: "acme", sinceMs: 0 });
      for (const event of source) {
        const fork = await forkTask(store, taskId, { atSeq: event.seq });
        const copy = await store.read(fork.taskId);
        expect(copy.slice(0, fork.seq).map(body).slice(1)).toEqual(source.slice(0, fork.seq).map(body).slice(1));
        expect(copy[fork.seq]).toMatchObject({ type: "task_forked", source: { taskId, seq: fork.seq } });
        expect((await store.getTask(fork.taskId)).summary.forkedFrom).toEqual({
          taskId,
          seq: fork.seq,
          origin: "fork",
        });
      }
      expect(JSON.stringify(await store.read(taskId))).toBe(before);
      if (usage !== undefined)
        expect((await store.usage?.({ principal: "acme", sinceMs: 0 }))?.buckets).toEqual(usage.buckets);
    });

    it("replays a recorded task with every model request identical, here and after export and import", async () => {
      const store = await fresh();
      const { taskId, agent } = await recordTrip(store);
      const report = await replayTask(store, taskId, { agent });
      expect(report.divergence).toBeUndefined();
      expect(report).toMatchObject({ outcome: "identical", recordedTurns: 4 });
      const home = new MemoryStore();
      const imported = await importTask(home, await exportTask(store, taskId, { withChildren: true }));
      expect((await replayTask(home, imported.taskId, { agent })).outcome).toBe("identical");
    });
  });
}
