// listTasks({ objectiveContains }) on SQLite: the search key written at creation and the one the
// migration backfills (lowered by a JavaScript function, not SQLite's ASCII-only lower()) find
// exactly what a reference search in JavaScript finds, for any objective and any piece of it.
import { DatabaseSync } from "node:sqlite";
import { make } from "@sema-agent/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const LETTERS = ["a", "B", "é", "É", "ß", "İ", "ı", "Σ", "ς", "%", "_", " ", "x"];
const text = (max: number) =>
  fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: max }).map((parts) => parts.join(""));

/** What the search should find: the objectives whose lowered text contains the lowered piece. */
function reference(objectives: readonly string[], piece: string): number[] {
  const lowered = piece.toLowerCase();
  return objectives.flatMap((objective, index) => (objective.toLowerCase().includes(lowered) ? [index] : []));
}

/** Undo migration 10 (and those after it) on the file, as if it had been written before it. */
function downgrade(path: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`DROP TRIGGER IF EXISTS events_blob_refs; DROP TABLE blob_refs; DROP TABLE blob_puts;
      DELETE FROM schema_migrations WHERE version IN (12, 13);
      ALTER TABLE tasks DROP COLUMN person_lane; DELETE FROM schema_migrations WHERE version = 11;
      DROP INDEX tasks_by_agent; DROP INDEX tasks_by_parent;
      ALTER TABLE tasks DROP COLUMN agent; ALTER TABLE tasks DROP COLUMN objective_key;
      DELETE FROM schema_migrations WHERE version = 10;`);
  } finally {
    db.close();
  }
}

describe("SqliteStore objective search", () => {
  it("finds what JavaScript finds, written at creation and backfilled by the migration", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text(12), { minLength: 1, maxLength: 6 }), text(3), async (objectives, piece) => {
        const path = tempDb();
        const store = new SqliteStore({ path });
        const ids: string[] = [];
        for (const objective of objectives) {
          const [created] = await store.createTask({ created: make.created("alice", objective) });
          ids.push(created?.taskId ?? "");
        }
        const found = async (opened: SqliteStore) =>
          (await opened.listTasks({ principal: "alice", objectiveContains: piece, limit: 1000 })).tasks
            .map((task) => ids.indexOf(task.taskId))
            .sort((a, b) => a - b);
        const expected = reference(objectives, piece);
        expect(await found(store)).toEqual(expected);
        await store.close();
        downgrade(path);
        const migrated = new SqliteStore({ path });
        try {
          expect(await found(migrated)).toEqual(expected);
        } finally {
          await migrated.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
