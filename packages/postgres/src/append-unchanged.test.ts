/**
 * The one-round-trip append: taken when this store wrote the task's summary last, and never
 * when anything changed since — then the locking path decides, with the same answers as before.
 */
import { isSemaError } from "@sema-agent/core";
import { summarize } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "./test-server.fixture.ts";

/** A pool that counts single queries and checked-out clients (transactions). */
function countingPool(): { pool: pg.Pool; counts: { queries: number; transactions: number } } {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL });
  const counts = { queries: 0, transactions: 0 };
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  Object.assign(pool, {
    query: (...args: unknown[]) => {
      counts.queries++;
      return query(...args);
    },
    // pool.query checks a client out with a callback; a transaction takes one with connect().
    connect: (...args: unknown[]) => {
      if (args.length === 0) counts.transactions++;
      return connect(...args);
    },
  });
  return { pool, counts };
}

describe.skipIf(skip)("PostgresStore appends in one round trip", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function open(schema: string) {
    const { pool, counts } = countingPool();
    const store = await PostgresStore.open({ pool, schema, pollMs: 60_000 });
    cleanup.push(async () => {
      await store.close();
      await pool.end();
    });
    return { store, counts };
  }

  async function fresh() {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    return { schema, ...(await open(schema)) };
  }

  it("takes one statement and no transaction for a leg's appends after its own, a model turn's too", async () => {
    const { store, counts } = await fresh();
    const [created] = await store.createTask({ created: make.created("alice") });
    const id = created?.taskId ?? "";
    const lease = await store.acquireLease(id, { holder: { id: "w" }, ttlMs: 60_000 });
    let seq = 1;
    // A model turn moves the principal's usage counters (quotas) in the same statement.
    const appends = [[make.legStarted()], [make.turn(1), make.toolStarted("c1")], [make.toolResult("c1")]];
    for (const events of appends) {
      const before = { ...counts };
      const stored = await store.append(id, events, { expectedSeq: seq, leaseToken: lease.token });
      seq += events.length;
      expect(counts.queries - before.queries).toBe(1);
      expect(counts.transactions - before.transactions).toBe(0);
      // What it returns is what a read gives back, `at` included.
      expect(stored).toEqual(await store.read(id, { afterSeq: seq - events.length }));
    }
    const usage = await store.usage({ principal: "alice", sinceMs: 0 });
    expect(usage.buckets.map((bucket) => bucket.turns)).toEqual([1]);
    const task = await store.getTask(id);
    expect(task).toMatchObject({ lastSeq: 5, summary: summarize(await store.read(id)) });
    expect(task.updatedAt).toBe((await store.read(id)).at(-1)?.at);
  });

  it("writes nothing and falls back when another node changed the task, with the same answers", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const a = await open(schema);
    const b = await open(schema);
    const [created] = await a.store.createTask({ created: make.created("alice") });
    const id = created?.taskId ?? "";
    // b changes the summary (an input arrives); a's next append cannot be its fast one.
    await b.store.append(id, [make.input("received", "steer", "in-1")], { expectedSeq: 1 });
    const before = { ...a.counts };
    await a.store.append(id, [make.legStarted()], { expectedSeq: 2 });
    expect(a.counts.transactions - before.transactions).toBe(1);
    expect((await a.store.getTask(id)).summary).toEqual(summarize(await a.store.read(id)));

    // A stale seq: SeqConflict, as the locking path says, and nothing written.
    const stale = await a.store.append(id, [make.note()], { expectedSeq: 2 }).catch((e: unknown) => e);
    expect(isSemaError(stale, "SeqConflict")).toBe(true);
    // A lease taken over (as a host recovering a dead holder's task does, without waiting for
    // the lease to lapse on the database's clock): LeaseLost.
    const mine = await a.store.acquireLease(id, { holder: { id: "a" }, ttlMs: 60_000 });
    await b.store.acquireLease(id, { holder: { id: "b" }, ttlMs: 60_000, replaceHolderId: "a" });
    const lost = await a.store.append(id, [make.note()], { expectedSeq: 3, leaseToken: mine.token }).catch((e) => e);
    expect(isSemaError(lost, "LeaseLost")).toBe(true);
    expect((await b.store.read(id)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it("tells the workers when an append without a live lease leaves the task runnable", async () => {
    const { store } = await fresh();
    const [created] = await store.createTask({ created: make.created("alice") });
    const id = created?.taskId ?? "";
    const lease = await store.acquireLease(id, { holder: { id: "w" }, ttlMs: 60_000 });
    await store.append(id, [make.legStarted(), make.legEnded("leg-1", "parked:input")], {
      expectedSeq: 1,
      leaseToken: lease.token,
    });
    await store.releaseLease(id, lease.token);
    const notified: string[] = [];
    const unsubscribe = store.onRunnable?.((taskId) => notified.push(taskId));
    await store.listening();
    await store.append(id, [make.input("parked", "steer", "in-1")], { expectedSeq: 3 });
    const deadline = Date.now() + 3000;
    while (!notified.includes(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    unsubscribe?.();
    expect(notified).toContain(id);
  });
});
