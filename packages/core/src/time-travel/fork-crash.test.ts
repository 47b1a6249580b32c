// A fork whose host dies at any of its writes (dyingStore, creations counted) leaves either no
// fork or a whole one — the source's prefix then its task_forked — and the source untouched. Every
// fork point of the recorded trip and of its child, death before and after the write commits.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import type { Store } from "../ports/store.ts";
import { dyingStore, SimulatedDeath } from "../testing/dying-store.ts";
import { expectWholeFork } from "./fork-checks.fixture.ts";
import { type ForkResult, forkTask } from "./fork-task.ts";
import { recordTrip } from "./recorded-task.fixture.ts";

/** Every task of the trip's principal, whatever its summary says (a half-written fork would say nothing). */
async function taskIds(store: Store): Promise<Set<string>> {
  return new Set((await store.listTasks({ principal: "acme", limit: 1000 })).tasks.map((task) => task.taskId));
}

/** The one task in `after` and not in `before`, if any (more than one is a failure). */
function added(before: Set<string>, after: Set<string>): string | undefined {
  const ids = [...after].filter((id) => !before.has(id));
  expect(ids.length).toBeLessThanOrEqual(1);
  return ids[0];
}

describe("a fork whose host dies at a write", () => {
  for (const when of ["before", "after"] as const) {
    it(`leaves no fork or a whole one, and the source untouched, at every write of every fork point (death ${when} the write)`, async () => {
      const store = new MemoryStore();
      const { taskId } = await recordTrip(store);
      const child = (await store.read(taskId)).find((event) => event.type === "child_task")?.childTaskId;
      if (child === undefined) throw new Error("the trip has no child task");
      let deaths = 0;
      for (const sourceId of [taskId, child]) {
        const source = await store.read(sourceId);
        const untouched = JSON.stringify([source, await store.getTask(sourceId)]);
        for (const event of source) {
          // Die at the first write, then the second …, until the fork makes all its writes alive.
          for (let writes = 0; ; writes++) {
            expect(writes, "a fork makes a handful of writes").toBeLessThan(10);
            const before = await taskIds(store);
            const dying = dyingStore(store, { appendsBeforeDeath: writes, when, countCreates: true });
            let result: ForkResult | undefined;
            let failure: unknown;
            try {
              result = await forkTask(dying, sourceId, { atSeq: event.seq, principal: "acme" });
            } catch (error) {
              failure = error;
            }
            const fork = added(before, await taskIds(store));
            expect(JSON.stringify([await store.read(sourceId), await store.getTask(sourceId)])).toBe(untouched);
            if (result !== undefined) {
              expect(dying.dead).toBe(false);
              expect(fork).toBe(result.taskId);
              await expectWholeFork(store, source, result);
              break;
            }
            deaths++;
            expect(failure).toBeInstanceOf(SimulatedDeath);
            if (fork === undefined) continue;
            // The write committed before the host died: the fork is there, whole.
            const forked = (await store.read(fork)).find((e) => e.type === "task_forked");
            if (forked?.type !== "task_forked") throw new Error(`task ${fork} has no task_forked`);
            expect(forked.source.taskId).toBe(sourceId);
            await expectWholeFork(store, source, {
              taskId: fork,
              sourceTaskId: sourceId,
              seq: forked.source.seq,
              detachedChildren: forked.detachedChildren ?? [],
            });
          }
        }
      }
      expect(deaths).toBeGreaterThan(0);
    });
  }
});
