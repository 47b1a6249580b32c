// The blob references of schema 11: filled by the events' insert trigger, backfilled from the
// events of a file schema 11 left, and searched (never a scan of the events) when a deletion asks
// whether another task still names a blob.
import { DatabaseSync } from "node:sqlite";
import type { TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const bytes = Uint8Array.from([1, 1, 2, 3, 5, 8]);
const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
const withImage: TaskEvent = {
  type: "human_input",
  v: 2,
  inputId: "i1",
  carrier: "steer",
  source: "user",
  delivery: "parked",
  sessionSeq: 0,
  text: "look",
  attachments: [{ type: "image", digest, mediaType: "image/png", size: bytes.length }],
};
const DAY = 86_400_000;

/** Two finished tasks naming the same blob, written a day before `now`. */
async function twoTasks(path: string, now: number): Promise<string[]> {
  const store = new SqliteStore({ path, now: () => now - DAY });
  await store.putBlob({ digest, bytes });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const [created] = await store.createTask({ created: make.created("p1") });
    const id = created?.taskId ?? "";
    await store.append(id, [withImage, { type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
    ids.push(id);
  }
  await store.close();
  return ids;
}

describe("blob references", () => {
  it("are backfilled for a file schema 11 left, and keep a blob until its last task goes", async () => {
    const path = tempDb();
    const now = Date.parse("2026-12-02T00:00:00.000Z");
    const [a, b] = await twoTasks(path, now);
    // The file as schema 11 left it: no references, no put times, no trigger.
    const db = new DatabaseSync(path);
    db.exec(`DROP TRIGGER events_blob_refs; DROP TABLE blob_refs; DROP TABLE blob_puts;
      DELETE FROM schema_migrations WHERE version = 12;`);
    db.close();
    const store = new SqliteStore({ path, now: () => now });
    try {
      expect((await store.deleteTask(a ?? "")).blobs).toEqual([]);
      expect(await store.getBlob(digest)).toEqual(bytes);
      expect((await store.deleteTask(b ?? "")).blobs).toEqual([digest]);
      expect(await store.getBlob(digest)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("are searched by digest, not found by a scan of the events", async () => {
    const path = tempDb();
    await twoTasks(path, Date.now());
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const refs = db.prepare("SELECT digest, task_no FROM blob_refs").all();
      expect(refs).toHaveLength(2);
      expect(new Set(refs.map((row) => row.digest))).toEqual(new Set([digest]));
      const plan = db
        .prepare("EXPLAIN QUERY PLAN SELECT 1 FROM blob_refs WHERE digest = ? LIMIT 1")
        .all(digest)
        .map((row) => String(row.detail));
      expect(plan.join(" ")).toMatch(/SEARCH blob_refs USING (COVERING |PRIMARY KEY|INDEX)/);
      expect(plan.join(" ")).not.toContain("events");
    } finally {
      db.close();
    }
  });
});
