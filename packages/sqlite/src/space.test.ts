// Space after deletions: a new file is in incremental auto-vacuum and shrinks on reclaimSpace; a
// file made before keeps its mode (opening it writes nothing), and vacuum() converts it.
import { statSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import type { TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const cancelled: TaskEvent[] = [make.note("x".repeat(8000)), { type: "task_cancelled", v: 1 }];

async function fill(store: SqliteStore, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const [created] = await store.createTask({ created: make.created() });
    const id = created?.taskId ?? "";
    await store.append(id, cancelled, { expectedSeq: 1 });
    ids.push(id);
  }
  return ids;
}

function autoVacuum(path: string): number {
  const db = new DatabaseSync(path);
  try {
    return Number(db.prepare("PRAGMA auto_vacuum").get()?.auto_vacuum);
  } finally {
    db.close();
  }
}

describe("SqliteStore space", () => {
  it("creates files in incremental auto-vacuum and gives deleted tasks' pages back", async () => {
    const path = tempDb();
    const store = new SqliteStore({ path });
    const ids = await fill(store, 100);
    await store.reclaimSpace();
    const before = statSync(path).size;
    for (const id of ids.slice(0, 90)) await store.deleteTask(id);
    const reclaimed = await store.reclaimSpace();
    await store.close();
    expect(autoVacuum(path)).toBe(2);
    expect(reclaimed.bytesAfter).toBeLessThan(reclaimed.bytesBefore / 3);
    expect(statSync(path).size).toBeLessThan(before / 3);
  });

  it("leaves an older file's mode alone, and vacuum() shrinks and converts it", async () => {
    const path = tempDb();
    // A file as an older version made it: no auto-vacuum.
    const old = new DatabaseSync(path);
    old.exec("PRAGMA journal_mode = WAL");
    old.exec("CREATE TABLE placeholder (x)");
    old.exec("DROP TABLE placeholder");
    old.close();
    const store = new SqliteStore({ path });
    const ids = await fill(store, 100);
    for (const id of ids.slice(0, 90)) await store.deleteTask(id);
    const kept = await store.reclaimSpace();
    expect(kept.bytesAfter).toBe(kept.bytesBefore);
    expect(autoVacuum(path)).toBe(0);
    const vacuumed = await store.vacuum();
    expect(vacuumed.bytesAfter).toBeLessThan(vacuumed.bytesBefore / 3);
    expect(autoVacuum(path)).toBe(2);
    // Still the same store: the tasks left are whole.
    for (const id of ids.slice(90)) expect((await store.read(id)).length).toBe(3);
    await store.close();
  });
});
