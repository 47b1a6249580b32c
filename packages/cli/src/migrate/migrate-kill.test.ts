// A migration killed (SIGKILL) at every step, each INSERT and COMMIT into the target, leaves a
// consistent target: each task wholly there or absent, never torn. Running it again finishes, and
// the target then holds every task with the source's log, digest for digest, its blob and its
// push config.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { type FixtureEnd, runFixture, tornRowsOf } from "../test-support/kill-fixture.ts";
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

const ended: TaskEvent[] = [make.legStarted("l1"), { type: "task_completed", v: 1, result: "ok" }, make.legEnded("l1")];

/** A source with three finished tasks (one with a child, one with a blob and a push config) and a parked one. */
async function seed(path: string): Promise<string[]> {
  const store = new SqliteStore({ path });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const [created] = await store.createTask({ created: make.created(i % 2 === 0 ? "p1" : "p2") });
    const id = created?.taskId ?? "";
    ids.push(id);
    if (i === 1) {
      const [child] = await store.createTask({ created: { ...make.created("p2"), parentTaskId: id } });
      await store.append(child?.taskId ?? "", [...ended, { type: "parent_notified", v: 1 }], { expectedSeq: 1 });
      ids.push(child?.taskId ?? "");
    }
    if (i === 2) {
      const bytes = Uint8Array.from([4, 5, 6]);
      const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
      await store.putBlob({ digest, bytes });
      const input: TaskEvent = {
        type: "human_input",
        v: 2,
        inputId: "i1",
        carrier: "steer",
        source: "user",
        delivery: "parked",
        sessionSeq: 0,
        text: "look",
        attachments: [{ type: "image", digest, mediaType: "image/png", size: 3 }],
      };
      await store.append(id, [input], { expectedSeq: 1 });
      await store.append(id, ended, { expectedSeq: 2 });
      const pushes = new SqlitePushConfigStore({ path });
      await pushes.put({
        taskId: id,
        id: "hook",
        principal: "p1",
        url: "https://example.com/hook",
        token: "t",
        createdAt: "2026-12-01T00:00:00.000Z",
        deliveredSeq: 3,
      });
      await pushes.close();
    } else await store.append(id, ended, { expectedSeq: 1 });
  }
  const [parked] = await store.createTask({ created: make.created("p1") });
  await store.append(parked?.taskId ?? "", [make.legStarted("l1"), make.legEnded("l1", "parked:input")], {
    expectedSeq: 1,
  });
  ids.push(parked?.taskId ?? "");
  await store.close();
  return ids;
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
