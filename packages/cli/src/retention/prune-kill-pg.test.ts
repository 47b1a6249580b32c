// A prune of a PostgreSQL schema killed (SIGKILL) at every step, archive writes and every
// statement that can change the database alike, leaves a consistent schema: each task wholly there
// or wholly gone, and gone only once archived. Running it again finishes the work with one whole
// archive file per task and the blob gone. Two deletions run at once (a batch of two), each in a
// transaction of its own. SEMA_REQUIRE_POSTGRES=1 makes an unreachable server a failure, not a skip.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseExport } from "@sema-agent/core/time-travel";
import { PostgresStore } from "@sema-agent/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../../postgres/src/test-server.fixture.ts";
import { type FixtureEnd, runFixture } from "../test-support/kill-fixture.ts";
import { pgTornRows } from "../test-support/pg-torn-rows.ts";
import { type SeededTasks, seedFamilies } from "../test-support/seed-tasks.ts";

const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-prune-kill-pg-"));
  dirs.push(dir);
  return dir;
}

/** A fresh schema holding the seeded tasks. */
async function seeded(): Promise<{ schema: string; tasks: SeededTasks }> {
  const schema = freshSchema();
  schemas.push(schema);
  const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
  try {
    return { schema, tasks: await seedFamilies(store, Uint8Array.from([1, 2, 3])) };
  } finally {
    await store.close();
  }
}

function pruneInChild(schema: string, archive: string, killAt: number): Promise<FixtureEnd> {
  return runFixture(new URL("./prune-kill-pg.fixture.ts", import.meta.url), [
    POSTGRES_URL,
    schema,
    archive,
    `${killAt}`,
  ]);
}

describe.skipIf(skip)("a prune of PostgreSQL killed at every step", () => {
  it("leaves each task wholly there or gone (and archived), and a run again finishes", {
    timeout: 900_000,
  }, async () => {
    const first = await seeded();
    const clean = await pruneInChild(first.schema, join(tempDir(), "archive"), 0);
    expect(clean.out).toContain("pruned 3 ");
    const steps = Number(/in (\d+) steps/.exec(clean.out)?.[1]);
    expect(steps).toBeGreaterThan(10);
    for (let killAt = 1; killAt <= steps; killAt++) {
      const { schema, tasks } = await seeded();
      const archive = join(tempDir(), "archive");
      const killed = await pruneInChild(schema, archive, killAt);
      expect(killed.signal, `step ${killAt}`).toBe("SIGKILL");
      expect(await pgTornRows(schema, { parents: true }), `step ${killAt}`).toEqual([]);
      const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      try {
        expect((await store.getTask(tasks.live)).summary.status).toBe("parked");
        for (const id of tasks.roots) {
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
      const again = await pruneInChild(schema, archive, 0);
      expect(again.signal, `step ${killAt}`).toBeNull();
      expect(await pgTornRows(schema, { parents: true }), `step ${killAt}`).toEqual([]);
      const files = readdirSync(archive).sort();
      expect(files, `step ${killAt}`).toEqual(tasks.roots.map((id) => `${id}.jsonl`).sort());
      for (const file of files) await parseExport(readFileSync(join(archive, file), "utf8"));
      const after = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      try {
        for (const id of tasks.roots) await expect(after.getTask(id)).rejects.toMatchObject({ code: "TaskNotFound" });
        expect((await after.getTask(tasks.live)).summary.status).toBe("parked");
        expect((await after.stats()).blobs, `step ${killAt}`).toBe(0);
      } finally {
        await after.close();
      }
      await dropSchema(schema);
    }
  });
});
