// Forks on a real PostgreSQL server (docs/guide/time-travel.md): a fork is one createTask, one
// statement however long the copied log (its events go as arrays, a dozen parameters in all, far
// from PostgreSQL's 65,535 bind parameters per statement), so it is written whole or not at all;
// the source is only read; and the fork source the listing filters on is kept in step with the
// summary on every write path.
import type { Store, TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { forkTask } from "@sema-agent/core/time-travel";
import { afterEach, describe, expect, it } from "vitest";
import {
  expectForksAtEverySeq,
  expectWholeFork,
  recordLongTask,
} from "../../core/src/time-travel/fork-checks.fixture.ts";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

/**
 * Longer than 10,000 events, and than 65,535 ÷ 4: written a row of parameters per event (task,
 * seq, at, body), its INSERT would pass the limit on bind parameters.
 */
const LONG = 20_001;
/** Writing, forking and reading back a long log takes seconds, more on a loaded machine. */
const LONG_TEST = { timeout: 120_000 };

describe.skipIf(skip)("forks (PostgresStore)", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function open(schema: string, groupCommit = true): Promise<PostgresStore> {
    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema, groupCommit });
    cleanup.push(() => store.close());
    return store;
  }

  async function freshStore(groupCommit = true): Promise<{ store: PostgresStore; schema: string }> {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    return { store: await open(schema, groupCommit), schema };
  }

  async function rowCounts(schema: string): Promise<{ tasks: number; events: number }> {
    return withClient(async (client) => {
      const count = async (table: string) =>
        Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${table}`)).rows[0]?.n);
      return { tasks: await count("tasks"), events: await count("events") };
    });
  }

  const forksOf = async (store: Store, source: string) =>
    (await store.listTasks({ principal: "acme", forkedFrom: source })).tasks.map((task) => task.taskId);

  for (const groupCommit of [true, false]) {
    it(`forks a recorded task at every seq: each fork whole, the source unchanged, the forks listed (group commit ${groupCommit ? "on" : "off"})`, async () => {
      const { store } = await freshStore(groupCommit);
      await expectForksAtEverySeq(store);
    });
  }

  it(
    `forks a ${LONG.toLocaleString("en-US")}-event task whole in one statement, counting none of its turns again`,
    LONG_TEST,
    async () => {
      const { store, schema } = await freshStore();
      const source = await recordLongTask(store, LONG);
      const log = await store.read(source);
      const usage = await store.usage({ principal: "acme", sinceMs: 0 });
      const fork = await forkTask(store, source);
      expect(fork.seq).toBe(LONG);
      await expectWholeFork(store, log, fork);
      expect(await forksOf(store, source)).toEqual([fork.taskId]);
      expect(await store.usage({ principal: "acme", sinceMs: 0 })).toEqual(usage);
      expect(JSON.stringify(await store.read(source))).toBe(JSON.stringify(log));
      // Another node reads the same fork.
      const other = await open(schema);
      await expectWholeFork(other, log, fork);
    },
  );

  it("writes nothing of a fork whose write fails half-way, and forks again after", LONG_TEST, async () => {
    const { store, schema } = await freshStore();
    const source = await recordLongTask(store, LONG);
    const log = await store.read(source);
    const before = await rowCounts(schema);
    // A row in the middle of the fork's write fails: the event at seq 10,000 of a new task.
    await withClient(async (client) => {
      await client.query(`CREATE FUNCTION "${schema}".fail_half_way() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.seq = 10000 AND NEW.task_no > 1 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
      await client.query(`CREATE TRIGGER fail_half_way BEFORE INSERT ON "${schema}".events
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_half_way()`);
    });
    await expect(forkTask(store, source)).rejects.toMatchObject({ code: "StoreUnavailable" });
    expect(await rowCounts(schema)).toEqual(before);
    expect(await forksOf(store, source)).toEqual([]);
    await withClient((client) => client.query(`DROP TRIGGER fail_half_way ON "${schema}".events`));
    await expectWholeFork(store, log, await forkTask(store, source));
    expect(JSON.stringify(await store.read(source))).toBe(JSON.stringify(log));
  });

  it("keeps the fork source in step with the summary on the locking path too (a task another node wrote)", async () => {
    const { store, schema } = await freshStore();
    const source = await recordLongTask(store, 4);
    const [created] = await store.createTask({ created: make.created("acme") });
    const taskId = created?.taskId ?? "";
    // This node has no summary of the task in memory: its append locks the row and reads it.
    const other = await open(schema);
    const forked: TaskEvent = { type: "task_forked", v: 1, origin: "import", source: { taskId: source, seq: 4 } };
    await other.append(taskId, [forked], { expectedSeq: 1 });
    expect(await forksOf(store, source)).toEqual([taskId]);
    expect(await forksOf(other, source)).toEqual([taskId]);
  });
});
