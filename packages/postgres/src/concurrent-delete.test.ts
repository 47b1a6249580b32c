/**
 * Two deletions at once of the last two tasks naming one blob: each used to see the other's
 * reference (not yet deleted, as far as its snapshot knew) and keep the blob, which then no task
 * named. A deletion locks the rows of the blobs its tasks named, in digest order, before it asks
 * whether another task names them, so the second waits for the first to commit and then finds no
 * reference left. Interleaved on two connections: the first deletion's transaction is held open
 * until the second is seen waiting for its lock (polled, with a deadline).
 */
import type { Store } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { quoteSchema } from "./connection.ts";
import { PostgresStore } from "./postgres-store.ts";
import { queries } from "./queries.ts";
import { deleteTaskRows, operationQueries } from "./store-operations.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const bytes = Uint8Array.from([3, 1, 4, 1, 5]);
const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");

/** A cancelled task whose input names the blob. */
async function naming(store: Store): Promise<string> {
  const [created] = await store.createTask({ created: make.created("p1") });
  const id = created?.taskId ?? "";
  await store.append(id, [make.imageInput(digest, bytes.length), { type: "task_cancelled", v: 1 }], {
    expectedSeq: 1,
  });
  return id;
}

/** Poll until the backend `pid` waits for a lock, or `settled` says the other side finished; fail after 10 s. */
async function untilWaiting(watcher: pg.Client, pid: number, settled: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!settled()) {
    const { rows } = await watcher.query<{ wait: string | null }>(
      "SELECT wait_event_type AS wait FROM pg_stat_activity WHERE pid = $1",
      [pid],
    );
    if (rows[0]?.wait === "Lock") return;
    if (performance.now() > deadline) throw new Error(`backend ${pid} never waited for a lock`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.skipIf(skip)("two deletions at once of the last tasks naming a blob", () => {
  it("delete the blob: the second waits for the first, then finds no reference", async () => {
    const schema = freshSchema();
    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanups.push(async () => {
      await store.close();
      await dropSchema(schema);
    });
    await store.putBlob({ digest, bytes });
    const a = await naming(store);
    const b = await naming(store);
    const sql = queries(quoteSchema(schema));
    const ops = operationQueries(quoteSchema(schema));
    await withClient((first) =>
      withClient((second) =>
        withClient(async (watcher) => {
          const txOf = (client: pg.Client) => ({ client: client as pg.PoolClient, sql });
          await first.query("BEGIN");
          const deletedA = await deleteTaskRows(txOf(first), ops, a);
          // The first deletion is done but not committed: it saw b's reference, so it kept the blob.
          expect(deletedA.blobs).toEqual([]);
          const [{ pid }] = (await second.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows as [
            { pid: number },
          ];
          await second.query("BEGIN");
          let settled = false;
          const deletingB = deleteTaskRows(txOf(second), ops, b).finally(() => {
            settled = true;
          });
          await untilWaiting(watcher, pid, () => settled);
          await first.query("COMMIT");
          const deletedB = await deletingB;
          await second.query("COMMIT");
          expect(deletedB.blobs).toEqual([digest]);
        }),
      ),
    );
    expect(await store.getBlob(digest)).toBeUndefined();
    expect((await store.stats()).blobs).toBe(0);
  });
});
