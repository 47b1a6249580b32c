/**
 * The priority lane: lease renewals, and the reads and appends of a leg a person attends (their
 * word arrived, the request that carries it not sent yet), have connections of their own. With
 * every connection of the store's pool busy (at ten thousand legs, reads and appends queue there),
 * a renewal still goes through at once, so a lease is lost only when the process itself stalls;
 * and so do the attended leg's read and append.
 */
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

describe.skipIf(skip)("the priority lane (PostgresStore)", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("renews a lease while every connection of the main pool is held and reads queue behind them", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanup.push(() => store.close());
    await store.createTask({ taskId: "t", created: make.created("p") });
    const lease = await store.acquireLease("t", { holder: { id: "h" }, ttlMs: 60_000 });

    const pool = await holdMainPool(store);
    const reads = Array.from({ length: 200 }, () => store.read("t"));
    let readsDone = false;
    void Promise.all(reads).then(() => {
      readsDone = true;
    });
    try {
      const renewed = await store.renewLease("t", lease.token, 60_000);
      expect(renewed.token).toBe(lease.token);
      // The reads are still waiting for the pool: the renewal did not queue behind them.
      expect(readsDone).toBe(false);
    } finally {
      await pool.release();
    }
    expect((await Promise.all(reads)).every((events) => events.length === 1)).toBe(true);
  });

  for (const groupCommit of [true, false]) {
    it(`reads and appends for an attended leg while the main pool is held (group commit ${groupCommit ? "on" : "off"})`, async () => {
      const schema = freshSchema();
      cleanup.push(() => dropSchema(schema));
      const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema, groupCommit });
      cleanup.push(() => store.close());
      await store.createTask({ taskId: "t", created: make.created("p") });
      const lease = await store.acquireLease("t", { holder: { id: "h" }, ttlMs: 60_000 });
      // Another writer moved the task: this store's next append takes the locking path.
      const other = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      cleanup.push(() => other.close());
      await other.append("t", [make.input("received", "steer", "i1", "steer")], { expectedSeq: 1 });

      const pool = await holdMainPool(store);
      const routine = store.read("t");
      // A new task's first step rides the person lane: ahead in the queue, but on the main pool.
      const newTask = store.read("t", { lane: "person" });
      let routineDone = false;
      void Promise.race([routine, newTask]).then(() => {
        routineDone = true;
      });
      try {
        const seen = await store.read("t", { afterSeq: 1, lane: "attended" });
        expect(seen.map((event) => event.seq)).toEqual([2]);
        const stored = await store.append("t", [make.note("applied")], {
          expectedSeq: 2,
          leaseToken: lease.token,
          lane: "attended",
        });
        expect(stored.map((event) => event.seq)).toEqual([3]);
        // The routine and person-lane reads still wait for the main pool: the attended work did
        // not queue behind them.
        expect(routineDone).toBe(false);
      } finally {
        await pool.release();
      }
      expect((await routine).map((event) => event.seq)).toEqual([1, 2, 3]);
      expect((await newTask).map((event) => event.seq)).toEqual([1, 2, 3]);
    });
  }
});

/**
 * Hold every connection of `store`'s main pool: a client outside the store holds an advisory
 * lock, and the pool's connections each wait for it. `release` lets them all go.
 */
async function holdMainPool(store: PostgresStore): Promise<{ release(): Promise<void> }> {
  const key = Math.floor(Math.random() * 1e9);
  let unlock = () => {};
  const unlocked = new Promise<void>((resolve) => {
    unlock = resolve;
  });
  let holding = () => {};
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const holder = withClient(async (client) => {
    await client.query("SELECT pg_advisory_lock($1)", [key]);
    holding();
    await unlocked;
    await client.query("SELECT pg_advisory_unlock($1)", [key]);
  });
  await held;
  const blocked = Array.from({ length: store.pool.options.max ?? 10 }, () =>
    store.pool.query("SELECT pg_advisory_lock($1), pg_advisory_unlock($1)", [key]),
  );
  return {
    async release() {
      unlock();
      await holder;
      await Promise.all(blocked);
    },
  };
}
