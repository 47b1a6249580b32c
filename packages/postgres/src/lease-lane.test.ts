/**
 * Lease renewals have a lane of their own: with every connection of the store's pool busy (at
 * ten thousand legs, reads and appends queue there), a renewal still goes through at once, so a
 * lease is lost only when the process itself stalls.
 */
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

describe.skipIf(skip)("the lease lane (PostgresStore)", () => {
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

    // A client outside the store holds an advisory lock; the pool's ten connections wait for it.
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
      unlock();
      await holder;
      await Promise.all(blocked);
    }
    expect((await Promise.all(reads)).every((events) => events.length === 1)).toBe(true);
  });
});
