// A migration killed (SIGKILL) at every step, each INSERT and COMMIT into the target, leaves a
// consistent target: each task wholly there or absent, never torn. Running it again finishes, and
// the target then holds every task with the source's log, digest for digest, its blob and its
// push config.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { type FixtureEnd, runFixture, tornRowsOf } from "../test-support/kill-fixture.ts";
import { seedMigrationSource as seed } from "../test-support/seed-tasks.ts";
import { logDigest } from "./migrate-stores.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-migrate-kill-"));
  dirs.push(dir);
  return dir;
}

function migrateInChild(from: string, to: string, killAt: number): Promise<FixtureEnd> {
  return runFixture(new URL("./migrate-kill.fixture.ts", import.meta.url), [from, to, `${killAt}`]);
}

/** Every task of the source in the target with the same log, and the same push configs. */
async function expectEqual(fromPath: string, toPath: string, ids: readonly string[]): Promise<void> {
  const from = new SqliteStore({ path: fromPath });
  const to = new SqliteStore({ path: toPath });
  const fromPushes = new SqlitePushConfigStore({ path: fromPath });
  const toPushes = new SqlitePushConfigStore({ path: toPath });
  try {
    for (const id of ids) {
      expect(logDigest(await to.read(id)), id).toBe(logDigest(await from.read(id)));
      expect((await to.getTask(id)).summary).toEqual((await from.getTask(id)).summary);
      expect(await toPushes.list(id)).toEqual(await fromPushes.list(id));
    }
    expect((await to.stats()).blobs).toBe(1);
  } finally {
    await Promise.all([from.close(), to.close(), fromPushes.close(), toPushes.close()]);
  }
}

describe("a migration killed at every step", () => {
  it("leaves a consistent target, and a run again finishes with every task equal", { timeout: 1_200_000 }, async () => {
    const origin = join(tempDir(), "source.db");
    const ids = await seed(origin);
    const full = tempDir();
    const clean = await migrateInChild(origin, join(full, "target.db"), 0);
    expect(clean.out).toContain(`copied ${ids.length} present 0 refused 0 mismatched 0`);
    const steps = Number(/in (\d+) steps/.exec(clean.out)?.[1]);
    expect(steps).toBeGreaterThan(ids.length);
    await expectEqual(origin, join(full, "target.db"), ids);
    for (let killAt = 1; killAt <= steps; killAt++) {
      const dir = tempDir();
      const source = join(dir, "source.db");
      const target = join(dir, "target.db");
      copyFileSync(origin, source);
      const killed = await migrateInChild(source, target, killAt);
      expect(killed.signal, `step ${killAt}`).toBe("SIGKILL");
      expect(tornRowsOf(target), `step ${killAt}`).toEqual([]);
      const again = await migrateInChild(source, target, 0);
      expect(again.signal, `step ${killAt}`).toBeNull();
      expect(again.out, `step ${killAt}`).toMatch(/refused 0 mismatched 0/);
      const done = /copied (\d+) present (\d+)/.exec(again.out);
      expect(Number(done?.[1]) + Number(done?.[2]), `step ${killAt}`).toBe(ids.length);
      expect(tornRowsOf(target)).toEqual([]);
      await expectEqual(source, target, ids);
    }
  });
});
