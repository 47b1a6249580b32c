/**
 * The listing filters part of the store conformance suite: `listTasks` by agent, by a piece of the
 * objective (ignoring case, within its first `OBJECTIVE_SEARCH_CHARS` characters), by parent, and
 * roots only; each within the principal, combined with the others and paged like any listing. And
 * `countChildren`, which a listing asks for the children of the tasks of a page.
 */
import { OBJECTIVE_SEARCH_CHARS } from "../adapters/store-rules.ts";
import type { ListTasksOptions, Store } from "../ports/store.ts";
import type { TaskCreatedEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";
import { sleep } from "./store-conformance-support.ts";

/** A task of `principal` created with these fields of `task_created`. */
async function created(
  store: Store,
  principal: string,
  fields: Partial<Pick<TaskCreatedEvent, "agent" | "objective" | "parentTaskId">> = {},
): Promise<string> {
  const [event] = await store.createTask({ created: { ...make.created(principal), ...fields } });
  if (event === undefined) throw new Error("createTask returned no event");
  // Distinct creation times, so the listing order is the creation order.
  await sleep(2);
  return event.taskId;
}

/** Every task id the listing gives, page after page of `limit`, newest first. */
async function allIds(store: Store, options: ListTasksOptions, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const result = await store.listTasks(cursor === undefined ? { ...options, limit } : { ...options, limit, cursor });
    ids.push(...result.tasks.map((task) => task.taskId));
    if (result.nextCursor === undefined) return ids;
    cursor = result.nextCursor;
  }
  throw new Error("the listing did not end");
}

export function filtersConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, expectCode } = context;
  describe("listing filters", () => {
    it("lists by agent, by parent and roots only, within the principal, a page at a time", async () => {
      const store = await fresh();
      const root = await created(store, "alice", { agent: "writer" });
      const other = await created(store, "alice", { agent: "reader" });
      const kids = [
        await created(store, "alice", { agent: "writer", parentTaskId: root }),
        await created(store, "alice", { agent: "reader", parentTaskId: root }),
        await created(store, "alice", { parentTaskId: root }),
      ];
      await created(store, "alice", { parentTaskId: other });
      const plain = await created(store, "alice");
      await created(store, "bob", { agent: "writer" });
      await created(store, "bob", { parentTaskId: root });

      expect(await allIds(store, { principal: "alice", agent: "writer" })).toEqual([kids[0], root]);
      expect(await allIds(store, { principal: "alice", agent: "nobody" })).toEqual([]);
      expect(await allIds(store, { principal: "alice", parentTaskId: root })).toEqual([...kids].reverse());
      expect(await allIds(store, { principal: "alice", rootsOnly: true })).toEqual([plain, other, root]);
      expect(await allIds(store, { principal: "alice", rootsOnly: true, agent: "reader" })).toEqual([other]);
      expect(await allIds(store, { principal: "alice", parentTaskId: root, agent: "reader" })).toEqual([kids[1]]);
      expect(await allIds(store, { principal: "bob", parentTaskId: root })).toHaveLength(1);
      expect(await allIds(store, { principal: "alice", rootsOnly: false })).toHaveLength(7);
    });

    it("counts each asked task's children within the principal, forks not among them", async () => {
      const store = await fresh();
      expect(typeof store.countChildren, "the store has countChildren").toBe("function");
      const count = (principal: string, taskIds: string[]) => {
        if (store.countChildren === undefined) throw new Error("no countChildren");
        return store.countChildren({ principal, taskIds });
      };
      const root = await created(store, "alice");
      const other = await created(store, "alice");
      const kid = await created(store, "alice", { parentTaskId: root });
      await created(store, "alice", { parentTaskId: root });
      const grandchild = await created(store, "alice", { parentTaskId: kid });
      await created(store, "bob", { parentTaskId: root });
      // A fork is a root of its own: its source does not count it as a child.
      await store.createTask({
        created: make.created("alice"),
        more: [{ type: "task_forked", v: 1, origin: "fork", source: { taskId: other, seq: 1 } }],
      });

      const counts = await count("alice", [root, other, kid, grandchild, "unknown", root]);
      expect(Object.fromEntries(counts)).toEqual({
        [root]: 2,
        [other]: 0,
        [kid]: 1,
        [grandchild]: 0,
        unknown: 0,
      });
      expect(Object.fromEntries(await count("bob", [root]))).toEqual({ [root]: 1 });
      expect((await count("alice", [])).size).toBe(0);
      await expectCode(
        count(
          "alice",
          Array.from({ length: 1001 }, (_, i) => `t${i}`),
        ),
        "InvalidInput",
      );
    });

    it("lists by a piece of the objective, ignoring case, with the other filters", async () => {
      const store = await fresh();
      const a = await created(store, "alice", { objective: "Book a TRIP to Lisbon", agent: "travel" });
      const b = await created(store, "alice", { objective: "Plan the trip budget" });
      await created(store, "alice", { objective: "Write the report" });
      const c = await created(store, "alice", { objective: "ÉTÉ à Paris: trip" });
      await created(store, "bob", { objective: "trip for bob" });

      expect(await allIds(store, { principal: "alice", objectiveContains: "trip" })).toEqual([c, b, a]);
      expect(await allIds(store, { principal: "alice", objectiveContains: "TRIP TO" })).toEqual([a]);
      expect(await allIds(store, { principal: "alice", objectiveContains: "été" })).toEqual([c]);
      expect(await allIds(store, { principal: "alice", objectiveContains: "trip", agent: "travel" })).toEqual([a]);
      // Characters SQL patterns give a meaning to are plain text here.
      expect(await allIds(store, { principal: "alice", objectiveContains: "%" })).toEqual([]);
      expect(await allIds(store, { principal: "alice", objectiveContains: "_" })).toEqual([]);
    });

    it("searches the objective's first OBJECTIVE_SEARCH_CHARS characters only", async () => {
      const store = await fresh();
      const head = "x".repeat(OBJECTIVE_SEARCH_CHARS - 6);
      const id = await created(store, "alice", { objective: `${head}needle haystack` });
      expect(await allIds(store, { principal: "alice", objectiveContains: "needle" })).toEqual([id]);
      expect(await allIds(store, { principal: "alice", objectiveContains: "hay" })).toEqual([]);
    });

    it("names each task it creates or appends to, to onTaskChange listeners until they unsubscribe", async () => {
      const store = await fresh();
      if (store.onTaskChange === undefined) return;
      const named: Array<string | undefined> = [];
      const stop = store.onTaskChange((taskId) => named.push(taskId));
      const id = await created(store, "alice");
      await store.append(id, [make.note("one")], { expectedSeq: 1 });
      stop();
      await store.append(id, [make.note("two")], { expectedSeq: 2 });
      // Named at least once per write (a store may name a task again, or say undefined: read again).
      expect(named.filter((taskId) => taskId === id).length).toBeGreaterThanOrEqual(2);
      expect(named.every((taskId) => taskId === id || taskId === undefined)).toBe(true);
      const after = named.length;
      await store.append(id, [make.note("three")], { expectedSeq: 3 });
      expect(named).toHaveLength(after);
    });

    it("refuses an empty or too long search and a parent with roots only", async () => {
      const store = await fresh();
      await expectCode(store.listTasks({ principal: "alice", objectiveContains: "" }), "InvalidInput");
      await expectCode(
        store.listTasks({ principal: "alice", objectiveContains: "x".repeat(OBJECTIVE_SEARCH_CHARS + 1) }),
        "InvalidInput",
      );
      await expectCode(store.listTasks({ principal: "alice", parentTaskId: "t", rootsOnly: true }), "InvalidInput");
    });
  });
}
