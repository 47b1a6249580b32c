// The blob references: filled by the events' insert trigger with the digests of content parts
// only (schema 13), backfilled from the events of a file schema 11 left, rebuilt without the
// wrong rows of a file schema 12 left (any "digest" member), and searched (never a scan of the
// events) when a deletion asks whether another task still names a blob. The clock is fixed.
import { DatabaseSync } from "node:sqlite";
import type { TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const bytes = Uint8Array.from([1, 1, 2, 3, 5, 8]);
const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
const DAY = 86_400_000;
const NOW = Date.parse("2026-12-02T00:00:00.000Z");

/** Digests that name no blob: an approval's call digest, a model turn's request digests. */
const notBlobs: TaskEvent[] = [
  {
    type: "approval_requested",
    v: 1,
    legId: "l1",
    callId: "c1",
    name: "echo",
    inputJson: "{}",
    digest: "a".repeat(64),
  },
  {
    ...make.turn(1),
    v: 2,
    request: {
      digest: "b".repeat(64),
      system: "c".repeat(64),
      tools: "d".repeat(64),
      settings: "e".repeat(64),
      transcript: "f".repeat(64),
      entries: 1,
    },
  },
];

/** A transcript entry whose parts name the blob. */
const userEntry: TaskEvent = {
  type: "user_message",
  v: 2,
  entryId: "e1",
  content: "look",
  inputIds: ["i1"],
  parts: [
    { type: "text", text: "look" },
    { type: "image", digest, mediaType: "image/png", size: bytes.length },
  ],
};

/** Two finished tasks naming the same blob (and, before it, digests of no blob), written a day before `now`. */
async function twoTasks(path: string, now: number): Promise<string[]> {
  const store = new SqliteStore({ path, now: () => now - DAY });
  await store.putBlob({ digest, bytes });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const [created] = await store.createTask({ created: make.created("p1") });
    const id = created?.taskId ?? "";
    await store.append(id, [...notBlobs, make.imageInput(digest, bytes.length), { type: "task_cancelled", v: 1 }], {
      expectedSeq: 1,
    });
    ids.push(id);
  }
  await store.close();
  return ids;
}

function refsOf(path: string): Array<{ digest: string; task_no: number }> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare("SELECT digest, task_no FROM blob_refs ORDER BY task_no").all() as Array<{
      digest: string;
      task_no: number;
    }>;
  } finally {
    db.close();
  }
}

describe("blob references", () => {
  it("are backfilled for a file schema 11 left, and keep a blob until its last task goes", async () => {
    const path = tempDb();
    const [a, b] = await twoTasks(path, NOW);
    // The file as schema 11 left it: no references, no put times, no trigger.
    const db = new DatabaseSync(path);
    db.exec(`DROP TRIGGER IF EXISTS events_blob_refs; DROP TABLE blob_refs; DROP TABLE blob_puts;
      DELETE FROM schema_migrations WHERE version IN (12, 13);`);
    db.close();
    const store = new SqliteStore({ path, now: () => NOW });
    try {
      expect((await store.deleteTask(a ?? "")).blobs).toEqual([]);
      expect(await store.getBlob(digest)).toEqual(bytes);
      expect((await store.deleteTask(b ?? "")).blobs).toEqual([digest]);
      expect(await store.getBlob(digest)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("hold the digests of content parts only, and a file schema 12 left loses its wrong rows", async () => {
    const path = tempDb();
    await twoTasks(path, NOW);
    expect(refsOf(path).map((row) => row.digest)).toEqual([digest, digest]);
    // The file as schema 12 left it: its trigger took any "digest" member.
    const db = new DatabaseSync(path);
    db.exec(`INSERT INTO blob_refs (digest, task_no) SELECT '${"a".repeat(64)}', task_no FROM tasks;
      INSERT INTO blob_refs (digest, task_no) SELECT '${"b".repeat(64)}', task_no FROM tasks;
      DELETE FROM schema_migrations WHERE version = 13;`);
    db.close();
    expect(refsOf(path)).toHaveLength(6);
    const store = new SqliteStore({ path, now: () => NOW });
    try {
      const [created] = await store.createTask({ created: make.created("p1") });
      await store.append(created?.taskId ?? "", [...notBlobs, userEntry], { expectedSeq: 1 });
    } finally {
      await store.close();
    }
    expect(refsOf(path).map((row) => row.digest)).toEqual([digest, digest, digest]);
  });

  it("are searched by digest, not found by a scan of the events", async () => {
    const path = tempDb();
    await twoTasks(path, NOW);
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
