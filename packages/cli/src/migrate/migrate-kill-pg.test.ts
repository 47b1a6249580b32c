// A migration from a SQLite file into PostgreSQL killed (SIGKILL) at every step, each write and
// COMMIT into the target schema, leaves a consistent target: each task wholly there or absent,
// never torn. Running it again finishes, and the target then holds every task with the source's
// log, digest for digest, its summary, its blob and its push config.
// SEMA_REQUIRE_POSTGRES=1 makes an unreachable server a failure, not a skip.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "@sema-agent/postgres";
import { PostgresPushConfigStore } from "@sema-agent/server/postgres-a2a-push";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../../postgres/src/test-server.fixture.ts";
import { type FixtureEnd, runFixture } from "../test-support/kill-fixture.ts";
import { pgTornRows } from "../test-support/pg-torn-rows.ts";
import { seedMigrationSource as seed } from "../test-support/seed-tasks.ts";
import { logDigest } from "./migrate-stores.ts";

const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});

function migrateInChild(from: string, schema: string, killAt: number): Promise<FixtureEnd> {
  return runFixture(new URL("./migrate-kill-pg.fixture.ts", import.meta.url), [
    from,
    POSTGRES_URL,
    schema,
    `${killAt}`,
  ]);
}

/** Every task of the source in the target with the same log and summary, and the same push configs. */
async function expectEqual(fromPath: string, schema: string, ids: readonly string[]): Promise<void> {
  const from = new SqliteStore({ path: fromPath });
  const to = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
  const fromPushes = new SqlitePushConfigStore({ path: fromPath });
  const toPushes = new PostgresPushConfigStore({ pool: to.pool, schema });
  try {
    for (const id of ids) {
      expect(logDigest(await to.read(id)), id).toBe(logDigest(await from.read(id)));
      expect((await to.getTask(id)).summary).toEqual((await from.getTask(id)).summary);
      expect(await toPushes.list(id)).toEqual(await fromPushes.list(id));
    }
    expect((await to.stats()).blobs).toBe(1);
  } finally {
    await Promise.all([from.close(), fromPushes.close(), toPushes.close()]);
    await to.close();
  }
}

describe.skipIf(skip)("a migration into PostgreSQL killed at every step", () => {
  it("leaves a consistent target, and a run again finishes with every task equal", { timeout: 1_200_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-migrate-kill-pg-"));
    dirs.push(dir);
    const source = join(dir, "source.db");
    const ids = await seed(source);
    const full = freshSchema();
    schemas.push(full);
    const clean = await migrateInChild(source, full, 0);
    expect(clean.out).toContain(`copied ${ids.length} present 0 refused 0 mismatched 0`);
    const steps = Number(/in (\d+) steps/.exec(clean.out)?.[1]);
    expect(steps).toBeGreaterThan(ids.length);
    await expectEqual(source, full, ids);
    for (let killAt = 1; killAt <= steps; killAt++) {
      const schema = freshSchema();
      schemas.push(schema);
      const killed = await migrateInChild(source, schema, killAt);
      expect(killed.signal, `step ${killAt}`).toBe("SIGKILL");
      expect(await pgTornRows(schema), `step ${killAt}`).toEqual([]);
      const again = await migrateInChild(source, schema, 0);
      expect(again.signal, `step ${killAt}`).toBeNull();
      expect(again.out, `step ${killAt}`).toMatch(/refused 0 mismatched 0/);
      const done = /copied (\d+) present (\d+)/.exec(again.out);
      expect(Number(done?.[1]) + Number(done?.[2]), `step ${killAt}`).toBe(ids.length);
      expect(await pgTornRows(schema)).toEqual([]);
      await expectEqual(source, schema, ids);
    }
  });
});
