/**
 * A fair claim locks only the rows it leases. It lists more candidates than it needs (headroom
 * for racing claimers) and must not hold all of them for the length of its transaction: a
 * concurrent claimer's SKIP LOCKED would skip every one and come back empty while runnable tasks
 * wait (seen as a worker pool idling until its next poll).
 */
import { startTask } from "@sema-agent/core";
import { afterEach, describe, expect, it } from "vitest";
import { quoteSchema } from "./connection.ts";
import { PostgresStore } from "./postgres-store.ts";
import { queries } from "./queries.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(skip)("fair claims on PostgreSQL", () => {
  it("the in-order claim locks only `limit` of its candidates; the rest stay free for another claimer", async () => {
    const schema = freshSchema();
    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanups.push(async () => {
      await store.close();
      await dropSchema(schema);
    });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await startTask(store, { objective: `task ${i}`, principal: "A" }));
    const sql = queries(quoteSchema(schema));
    await withClient(async (claimer) => {
      await claimer.query("BEGIN");
      const locked = await claimer.query<{ task_id: string }>(sql.claimInOrder, [ids, new Date(), 2]);
      expect(locked.rows.map((row) => row.task_id)).toEqual(ids.slice(0, 2));
      // While that claim's transaction is open, a second claimer can still lock the other six.
      await withClient(async (other) => {
        await other.query("BEGIN");
        const free = await other.query<{ task_id: string }>(sql.claimInOrder, [ids, new Date(), 8]);
        expect(free.rows.map((row) => row.task_id)).toEqual(ids.slice(2));
        await other.query("ROLLBACK");
      });
      await claimer.query("ROLLBACK");
    });
  });

  it("two fair claims at once on one principal's flood each get what they asked for", async () => {
    const schema = freshSchema();
    const stores = [
      await PostgresStore.open({ connectionString: POSTGRES_URL, schema }),
      await PostgresStore.open({ connectionString: POSTGRES_URL, schema }),
    ];
    cleanups.push(async () => {
      for (const store of stores) await store.close();
      await dropSchema(schema);
    });
    const [first] = stores;
    if (first === undefined) throw new Error("no store");
    for (let i = 0; i < 30; i++) await startTask(first, { objective: `task ${i}`, principal: "A" });
    for (let round = 0; round < 5; round++) {
      const claims = await Promise.all(
        stores.map((store, i) =>
          store.claimRunnable({ holder: { id: `w${round}-${i}` }, ttlMs: 60_000, limit: 2, fairness: { held: {} } }),
        ),
      );
      expect(claims.map((claim) => claim.length)).toEqual([2, 2]);
    }
  });
});
