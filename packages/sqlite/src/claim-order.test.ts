// People first in SQLite's runnable order (`person_lane`, migration 11): a person's task gets
// PERSON_HEAD_START_MS of head start on routine work, and no more (the store's clock injected).

import { DatabaseSync } from "node:sqlite";
import { PERSON_HEAD_START_MS } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

describe("SqliteStore's runnable order", () => {
  it("puts a person's task ahead of routine work up to the head start, and behind anything older", async () => {
    let now = Date.parse("2026-12-07T12:00:00.000Z");
    const path = tempDb();
    const store = new SqliteStore({ path, now: () => now });
    try {
      const [created] = await store.createTask({ created: make.created() });
      const routine = created?.taskId ?? "";
      const lease = await store.acquireLease(routine, { holder: { id: "w0" }, ttlMs: 1_000_000 });
      await store.append(routine, [make.legStarted("l1"), make.legEnded("l1", "parked:shutdown")], {
        expectedSeq: 1,
        leaseToken: lease.token,
      });
      await store.releaseLease(routine, lease.token);
      now += PERSON_HEAD_START_MS - 1;
      const soon = (await store.createTask({ created: make.created() }))[0]?.taskId;
      now += 2;
      const late = (await store.createTask({ created: make.created() }))[0]?.taskId;
      expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([soon, routine, late]);
      // The order survives a reopen: it is data in the row, not memory.
      await store.close();
      const again = new SqliteStore({ path, now: () => now });
      try {
        expect((await again.listRunnable()).map((r) => r.taskId)).toEqual([soon, routine, late]);
      } finally {
        await again.close();
      }
    } finally {
      await store.close();
    }
  });

  it("backfills the lane of a file written before migration 11", async () => {
    const path = tempDb();
    const store = new SqliteStore({ path });
    const [first] = await store.createTask({ created: make.created() });
    const routine = first?.taskId ?? "";
    const lease = await store.acquireLease(routine, { holder: { id: "w0" }, ttlMs: 1_000_000 });
    await store.append(routine, [make.legStarted("l1"), make.legEnded("l1", "parked:shutdown")], {
      expectedSeq: 1,
      leaseToken: lease.token,
    });
    await store.releaseLease(routine, lease.token);
    const [second] = await store.createTask({ created: make.created() });
    const steered = second?.taskId ?? "";
    await store.close();
    const db = new DatabaseSync(path);
    db.exec(`DROP TRIGGER IF EXISTS events_blob_refs; DROP TABLE blob_refs; DROP TABLE blob_puts;
      DELETE FROM schema_migrations WHERE version IN (12, 13);
      ALTER TABLE tasks DROP COLUMN person_lane; DELETE FROM schema_migrations WHERE version = 11;`);
    db.close();
    const migrated = new SqliteStore({ path });
    try {
      expect((await migrated.listRunnable()).map((r) => r.taskId)).toEqual([steered, routine]);
    } finally {
      await migrated.close();
    }
  });
});
