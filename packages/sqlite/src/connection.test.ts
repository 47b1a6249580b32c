import { describe, expect, it } from "vitest";
import { openDatabase } from "./connection.ts";
import { tempDb } from "./temp-dir.fixture.ts";

describe("openDatabase", () => {
  // The busy timeout is SQLite's own wait for another connection's write lock; checking the
  // setting (rather than timing a blocked append) keeps the store test free of wall-clock bounds.
  it("sets the busy timeout before anything else, and WAL with NORMAL sync", () => {
    const { db } = openDatabase(tempDb(), 1234, () => 0);
    try {
      expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 1234 });
      expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(db.prepare("PRAGMA synchronous").get()).toEqual({ synchronous: 1 });
    } finally {
      db.close();
    }
  });

  it("clamps a negative or fractional timeout to whole milliseconds, at least 0", () => {
    for (const [given, set] of [
      [-5, 0],
      [12.7, 12],
    ] as const) {
      const { db } = openDatabase(tempDb(), given, () => 0);
      expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: set });
      db.close();
    }
  });
});
