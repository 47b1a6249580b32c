// A prune killed (SIGKILL) at every step, archive writes, DELETEs and COMMITs alike, leaves a
// consistent SQLite file: each task wholly there or wholly gone, and gone only once archived.
// Running it again finishes the work with one whole archive file per task. The prune deletes two
// tasks a batch, which group commit runs in one transaction: the batched path is the one killed.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseExport } from "@sema-agent/core/time-travel";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { type FixtureEnd, runFixture, tornRows } from "../test-support/kill-fixture.ts";
import { seedFamilies } from "../test-support/seed-tasks.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-prune-kill-"));
  dirs.push(dir);
  return dir;
}

/**
 * A file with three finished families (one with a child, one with a blob) and a parked task,
 * written at a fixed time long past, so the blob's grace period (BLOB_GRACE_MS) is over when the
 * prune runs.
 */
async function seed(path: string): Promise<{ finished: string[]; live: string }> {
  const store = new SqliteStore({ path, now: () => Date.parse("2026-01-01T00:00:00.000Z") });
  try {
    const { roots, live } = await seedFamilies(store, Uint8Array.from([1, 2, 3]));
    return { finished: roots, live };
  } finally {
    await store.close();
  }
}

function pruneInChild(path: string, archive: string, killAt: number): Promise<FixtureEnd> {
  return runFixture(new URL("./prune-kill.fixture.ts", import.meta.url), [path, archive, `${killAt}`]);
}

/** Rows that belong to no task, tasks whose events do not run 1 … last_seq, children without a parent. */
function inconsistencies(path: string): string[] {
  const db = new DatabaseSync(path);
  try {
    const problems = tornRows(db);
    const orphanChildren = db
      .prepare(
        "SELECT task_id FROM tasks WHERE parent_task_id IS NOT NULL AND parent_task_id NOT IN (SELECT task_id FROM tasks)",
      )
      .all();
    for (const row of orphanChildren) problems.push(`child ${String(row.task_id)} outlived its parent`);
    return problems;
  } finally {
    db.close();
  }
}

describe("a prune killed at every step", () => {
  it("leaves each task wholly there or gone (and archived), and a run again finishes", {
    timeout: 900_000,
  }, async () => {
    const origin = join(tempDir(), "origin.db");
    const { finished, live } = await seed(origin);
    const full = tempDir();
    copyFileSync(origin, join(full, "sema.db"));
    const clean = await pruneInChild(join(full, "sema.db"), join(full, "archive"), 0);
    const steps = Number(/in (\d+) steps/.exec(clean.out)?.[1]);
    expect(clean.out).toContain("pruned 3 ");
    expect(steps).toBeGreaterThan(6);
    // Batched: some COMMIT deleted more than one task.
    expect(Number(/at most (\d+) tasks a commit/.exec(clean.out)?.[1])).toBeGreaterThan(1);
    for (let killAt = 1; killAt <= steps; killAt++) {
      const dir = tempDir();
      const path = join(dir, "sema.db");
      const archive = join(dir, "archive");
      copyFileSync(origin, path);
      const killed = await pruneInChild(path, archive, killAt);
      expect(killed.signal, `step ${killAt}`).toBe("SIGKILL");
      expect(inconsistencies(path), `step ${killAt}`).toEqual([]);
      const store = new SqliteStore({ path });
      try {
        expect((await store.getTask(live)).summary.status).toBe("parked");
        for (const id of finished) {
          const gone = await store.getTask(id).then(
            () => false,
            () => true,
          );
          // Gone only once its archive is whole on disk.
          if (gone) await parseExport(readFileSync(join(archive, `${id}.jsonl`), "utf8"));
        }
      } finally {
        await store.close();
      }
      const again = await pruneInChild(path, archive, 0);
      expect(again.signal).toBeNull();
      expect(inconsistencies(path)).toEqual([]);
      const files = readdirSync(archive).sort();
      expect(files, `step ${killAt}`).toEqual(finished.map((id) => `${id}.jsonl`).sort());
      for (const file of files) await parseExport(readFileSync(join(archive, file), "utf8"));
      const after = new SqliteStore({ path });
      try {
        for (const id of finished) await expect(after.getTask(id)).rejects.toMatchObject({ code: "TaskNotFound" });
        expect((await after.getTask(live)).summary.status).toBe("parked");
        expect((await after.stats()).blobs).toBe(0);
      } finally {
        await after.close();
      }
      expect(existsSync(join(dir, "sema.db"))).toBe(true);
    }
  });
});
