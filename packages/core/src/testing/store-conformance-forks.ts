/**
 * The forks part of the store conformance suite: `listTasks({ forkedFrom })` lists the tasks whose
 * summary names that source (`summary.forkedFrom.taskId`), within the principal, a page at a time,
 * with the status filter too; a task without forks lists none. A fork is written as `forkTask`
 * writes it: one `createTask` whose events end with `task_forked`.
 */
import type { Store } from "../ports/store.ts";
import type { TaskEvent, TaskForkedEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";
import { sleep } from "./store-conformance-support.ts";

function forked(source: string, seq: number): TaskForkedEvent {
  return { type: "task_forked", v: 1, origin: "fork", source: { taskId: source, seq } };
}

/** A fork of `source` owned by `principal`: the source's first two events copied, then `task_forked`. */
async function fork(store: Store, source: string, principal: string): Promise<string> {
  const copied: TaskEvent[] = [make.legStarted("l1"), make.turn(1)];
  const [created] = await store.createTask({ created: make.created(principal), more: [...copied, forked(source, 3)] });
  if (created === undefined) throw new Error("createTask returned no event");
  // Distinct creation times, so the listing order is the creation order.
  await sleep(2);
  return created.taskId;
}

export function forksConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, newTask } = context;
  describe("listing forks", () => {
    it("lists a task's forks newest first, under their source only, a page at a time", async () => {
      const store = await fresh();
      const source = await newTask(store, "alice");
      const other = await newTask(store, "alice");
      const mine: string[] = [];
      for (let i = 0; i < 5; i++) {
        mine.push(await fork(store, source, "alice"));
        await fork(store, other, "alice");
        await newTask(store, "alice");
      }
      const record = await store.getTask(mine[0] ?? "");
      expect(record.summary.forkedFrom).toEqual({ taskId: source, seq: 3, origin: "fork" });
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const options = { principal: "alice", forkedFrom: source, limit: 2 };
        const result = await store.listTasks(cursor === undefined ? options : { ...options, cursor });
        expect(result.tasks.length).toBeLessThanOrEqual(2);
        for (const task of result.tasks) expect(task.summary.forkedFrom?.taskId).toBe(source);
        seen.push(...result.tasks.map((task) => task.taskId));
        if (result.nextCursor === undefined) break;
        cursor = result.nextCursor;
      }
      expect(seen).toEqual([...mine].reverse());
      // Every task of the principal is still listed without the filter.
      expect((await store.listTasks({ principal: "alice", limit: 1000 })).tasks).toHaveLength(17);
    });

    it("never lists another principal's forks, and lists none for a task without forks", async () => {
      const store = await fresh();
      const source = await newTask(store, "alice");
      const plain = await newTask(store, "alice");
      const alices = await fork(store, source, "alice");
      // A task of bob's naming alice's task as its source (an import, say) is bob's alone.
      const bobs = await fork(store, source, "bob");
      const ids = async (principal: string, forkedFrom: string) =>
        (await store.listTasks({ principal, forkedFrom })).tasks.map((task) => task.taskId);
      expect(await ids("alice", source)).toEqual([alices]);
      expect(await ids("bob", source)).toEqual([bobs]);
      expect(await ids("carol", source)).toEqual([]);
      expect(await ids("alice", plain)).toEqual([]);
      expect(await ids("alice", alices)).toEqual([]);
      expect(await ids("alice", "no-such-task")).toEqual([]);
    });

    it("filters forks by status too, and follows the summary as appends change it", async () => {
      const store = await fresh();
      const source = await newTask(store, "alice");
      const parked = await fork(store, source, "alice");
      const done = await fork(store, source, "alice");
      await store.append(done, [{ type: "task_completed", v: 1, result: "ok" }], { expectedSeq: 4 });
      const page = await store.listTasks({ principal: "alice", forkedFrom: source, status: "completed" });
      expect(page.tasks.map((task) => task.taskId)).toEqual([done]);
      const parkedPage = await store.listTasks({ principal: "alice", forkedFrom: source, status: "parked" });
      expect(parkedPage.tasks.map((task) => task.taskId)).toEqual([parked]);
      // The listing follows the summary: a task_forked appended later lists the task from then on.
      const later = await newTask(store, "alice");
      await store.append(later, [make.note("before"), forked(source, 2)], { expectedSeq: 1 });
      const listed = await store.listTasks({ principal: "alice", forkedFrom: source });
      expect(listed.tasks.map((task) => task.taskId)).toEqual([later, done, parked]);
    });
  });
}
