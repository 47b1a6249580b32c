// A prune racing an upload of the same bytes for an event not yet appended: the bytes were a
// pruned task's, and no event of any other task names them yet. The upload's put starts a grace
// period (BLOB_GRACE_MS) in which a deletion keeps them, so the event appended after the prune
// finds its blob. Once the period is over and nothing names them, they go with the last task.
// The clock is injected (memory, SQLite); PostgreSQL stamps puts by its own clock, so there the
// puts are aged by rewriting their stamps.
import type { Store } from "@sema-agent/core";
import { MemoryStore } from "@sema-agent/core";
import { BLOB_GRACE_MS } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "../../../postgres/src/test-server.fixture.ts";
import { tempDb } from "../../../sqlite/src/temp-dir.fixture.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const bytes = Uint8Array.from([9, 8, 7, 6]);
const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
const withImage = make.imageInput(digest, bytes.length);

/** A finished task whose input names the blob. */
async function finishedWithBlob(store: Store): Promise<string> {
  await store.putBlob?.({ digest, bytes });
  const [created] = await store.createTask({ created: make.created("p1") });
  const id = created?.taskId ?? "";
  await store.append(id, [withImage, { type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
  return id;
}

/**
 * The race, on a store whose puts `age` makes older than the grace period: task A named the
 * blob; task B uploads the same bytes (no event yet); A is deleted; B's event then reads them.
 * Then B goes too, after the period: the blob goes with it.
 */
async function race(store: Store, age: () => Promise<void>): Promise<void> {
  const a = await finishedWithBlob(store);
  await age();
  // Control: with no upload meanwhile, deleting the last task naming it deletes the blob.
  const control = await store.deleteTask?.(a);
  expect(control?.blobs).toEqual([digest]);
  expect(await store.getBlob?.(digest)).toBeUndefined();

  const a2 = await finishedWithBlob(store);
  await age();
  const [created] = await store.createTask({ created: make.created("p1") });
  const b = created?.taskId ?? "";
  await store.putBlob?.({ digest, bytes }); // B's upload: the bytes exist, its event is not appended yet
  const deleted = await store.deleteTask?.(a2);
  expect(deleted?.blobs).toEqual([]);
  await store.append(b, [withImage, { type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
  expect(await store.getBlob?.(digest)).toEqual(bytes);

  await age();
  expect((await store.deleteTask?.(b))?.blobs).toEqual([digest]);
  expect(await store.getBlob?.(digest)).toBeUndefined();
}

describe("a prune racing an upload of the same bytes", () => {
  it("keeps them through the grace period (memory)", async () => {
    let now = Date.parse("2026-12-01T00:00:00.000Z");
    const store = new MemoryStore({ now: () => now });
    await race(store, async () => {
      now += BLOB_GRACE_MS + 1;
    });
  });

  it("keeps them through the grace period (SQLite)", async () => {
    let now = Date.parse("2026-12-01T00:00:00.000Z");
    const store = new SqliteStore({ path: tempDb(), now: () => now });
    cleanup.push(() => store.close());
    await race(store, async () => {
      now += BLOB_GRACE_MS + 1;
    });
  });

  it.skipIf(skip)("keeps them through the grace period (PostgreSQL)", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanup.push(() => store.close());
    await race(store, async () => {
      await withClient((client) =>
        client.query(`UPDATE "${schema}".blob_puts SET put_at = put_at - $1`, [BLOB_GRACE_MS + 1]),
      );
    });
  });
});
