// sema migrate's copy: SQLite → PostgreSQL → SQLite with every task reading back equal and
// replaying identically; a copy failing at every write (before or after it commits) finishes on a
// run again with nothing lost or doubled; a running task is refused; a different log is never overwritten.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, type Store, type StoredEvent, type TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { replayTask } from "@sema-agent/core/time-travel";
import { PostgresStore } from "@sema-agent/postgres";
import { MemoryPushConfigStore, type PushConfig } from "@sema-agent/server/a2a";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { recordTrip } from "../../../core/src/testing/sample-trip.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../../postgres/src/test-server.fixture.ts";
import { logDigest, migrateStores } from "./migrate-stores.ts";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
function sqlite(name: string): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), "sema-migrate-"));
  const store = new SqliteStore({ path: join(dir, name) });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => store.close());
  return store;
}

const image = Uint8Array.from([7, 7, 7]);
async function sha(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
}

/** A source with a recorded trip (a parent and its child), a task with an image, and a parked one. */
async function seed(store: Store): Promise<{ trip: Awaited<ReturnType<typeof recordTrip>>; ids: string[] }> {
  const trip = await recordTrip(store);
  const digest = await sha(image);
  await store.putBlob?.({ digest, bytes: image });
  const [a] = await store.createTask({ created: make.created("p2") });
  const withImage = a?.taskId ?? "";
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
  await store.append(withImage, [input, { type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
  const [b] = await store.createTask({ created: make.created("p2") });
  const parked = b?.taskId ?? "";
  await store.append(parked, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
  const ids: string[] = [];
  for (const principal of ["acme", "p2"])
    ids.push(...(await store.listTasks({ principal })).tasks.map((t) => t.taskId));
  return { trip, ids };
}

async function expectSameTasks(from: Store, to: Store, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const events = await from.read(id);
    expect(await to.read(id)).toEqual(events);
    const { lease: _a, ...source } = await from.getTask(id);
    const { lease: _b, ...copy } = await to.getTask(id);
    expect(copy).toEqual(source);
  }
}

/** `store` with some of its methods replaced (a Proxy: the stores keep private fields). */
function withWrites(store: Store, writes: Partial<Store>): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key in writes) return writes[key as keyof Store];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const config = (taskId: string): PushConfig => ({
  taskId,
  id: "hook",
  principal: "acme",
  url: "https://example.com/hook",
  token: "t",
  createdAt: "2026-12-01T00:00:00.000Z",
  deliveredSeq: 3,
});

describe("migrateStores", () => {
  it.skipIf(skip)(
    "copies SQLite → PostgreSQL → SQLite: logs byte for byte, summaries, blobs, push configs, replay",
    async () => {
      const source = sqlite("source.db");
      const { trip, ids } = await seed(source);
      expect(ids).toHaveLength(4);
      const pushes = new MemoryPushConfigStore();
      await pushes.put(config(trip.taskId));
      const schema = freshSchema();
      cleanup.push(() => dropSchema(schema));
      const postgres = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      cleanup.push(() => postgres.close());
      const pgPushes = new MemoryPushConfigStore();
      const there = await migrateStores(source, postgres, {
        from: { pushConfigs: pushes },
        to: { pushConfigs: pgPushes },
      });
      expect(there).toMatchObject({ present: [], refused: [], mismatched: [], blobs: 1, pushConfigs: 1 });
      expect(there.copied.sort()).toEqual([...ids].sort());
      await expectSameTasks(source, postgres, ids);
      expect(await pgPushes.list(trip.taskId)).toEqual([config(trip.taskId)]);
      expect(await postgres.getBlob(await sha(image))).toEqual(image);
      expect((await replayTask(postgres, trip.taskId, { agent: trip.agent })).outcome).toBe("identical");

      const back = sqlite("back.db");
      const again = await migrateStores(postgres, back);
      expect(again.copied.sort()).toEqual([...ids].sort());
      await expectSameTasks(source, back, ids);
      expect((await replayTask(back, trip.taskId, { agent: trip.agent })).outcome).toBe("identical");
      // A run again finds everything there, by digest, and writes nothing.
      const rerun = await migrateStores(postgres, back);
      expect(rerun.copied).toEqual([]);
      expect(rerun.present.sort()).toEqual([...ids].sort());
    },
  );

  for (const when of ["before", "after"] as const) {
    it(`finishes on a run again after failing at every write, ${when} it commits`, async () => {
      const source = new MemoryStore();
      const { ids } = await seed(source);
      const pushes = new MemoryPushConfigStore();
      await pushes.put(config(ids[0] ?? ""));
      // Each write of a copy (a blob, a task, a push config) in turn fails, before or after it commits.
      const copy = async (failAt: number) => {
        const target = sqlite(`target-${failAt}.db`);
        const targetPushes = new MemoryPushConfigStore();
        let count = 0;
        const dying =
          <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
          async (...args: A): Promise<R> => {
            // This write's own number: tasks are copied concurrently, so others count meanwhile.
            const n = ++count;
            if (n === failAt && when === "before") throw new Error("killed");
            const result = await write(...args);
            if (n === failAt) throw new Error("killed");
            return result;
          };
        const faulty = withWrites(target, {
          restoreTask: dying((events: readonly StoredEvent[]) => target.restoreTask(events)),
          putBlob: dying((blob: { digest: string; bytes: Uint8Array }) => target.putBlob(blob)),
        });
        const faultyPushes = {
          list: (id: string) => targetPushes.list(id),
          put: dying((c: PushConfig) => targetPushes.put(c)),
        };
        const failed = await migrateStores(source, faulty, {
          from: { pushConfigs: pushes },
          to: { pushConfigs: faultyPushes },
        }).then(
          () => false,
          (error: unknown) => error instanceof Error && error.message === "killed",
        );
        return { target, targetPushes, failed, writes: count };
      };
      const whole = await copy(0);
      expect(whole.failed).toBe(false);
      // Four tasks, one blob, one push config.
      expect(whole.writes).toBe(6);
      for (let failAt = 1; failAt <= whole.writes; failAt++) {
        const { target, targetPushes, failed } = await copy(failAt);
        expect(failed, `write ${failAt}`).toBe(true);
        const report = await migrateStores(source, target, {
          from: { pushConfigs: pushes },
          to: { pushConfigs: targetPushes },
        });
        expect(report.mismatched).toEqual([]);
        expect([...report.copied, ...report.present].sort()).toEqual([...ids].sort());
        await expectSameTasks(source, target, ids);
        expect(await targetPushes.list(ids[0] ?? "")).toEqual([config(ids[0] ?? "")]);
      }
    });
  }

  it("refuses a task with a leg running, only copies what --since selects, and never overwrites a different log", async () => {
    const source = new MemoryStore();
    const [a] = await source.createTask({ created: make.created("p1") });
    const running = a?.taskId ?? "";
    await source.append(running, [make.legStarted("l1")], { expectedSeq: 1 });
    await source.acquireLease(running, { holder: { id: "w" }, ttlMs: 60_000 });
    const [b] = await source.createTask({ created: make.created("p1") });
    const done = b?.taskId ?? "";
    await source.append(done, [{ type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
    const target = new MemoryStore();
    const report = await migrateStores(source, target);
    expect(report.copied).toEqual([done]);
    expect(report.refused).toMatchObject([{ taskId: running }]);
    expect(logDigest(await target.read(done))).toBe(logDigest(await source.read(done)));

    const later = await migrateStores(source, new MemoryStore(), { sinceMs: Date.now() + 60_000 });
    expect([...later.copied, ...later.refused]).toEqual([]);

    const clash = new MemoryStore();
    await clash.createTask({ taskId: done, created: make.created("p1") });
    const clashed = await migrateStores(source, clash, { principal: "p1", nowMs: Date.now() + 120_000 });
    expect(clashed.mismatched).toMatchObject([{ taskId: done }]);
    expect((await clash.read(done)).length).toBe(1);
  });

  it("carries the principals' datasets and experiments, every version in order, and resumes a copy cut short", async () => {
    const source = new MemoryStore();
    const [created] = await source.createTask({ created: make.created("acme") });
    await source.append(created?.taskId ?? "", [{ type: "task_cancelled", v: 1 }], { expectedSeq: 1 });
    for (const body of [{ cases: [1] }, { cases: [1, 2] }])
      await source.putRecord({ kind: "dataset", principal: "acme", name: "faq", body, meta: { cases: 1 } });
    await source.putRecord({ kind: "experiment", principal: "acme", name: "e1", body: { dataset: ["faq", 2] } });
    await source.putRecord({ kind: "dataset", principal: "other", name: "not-migrated", body: {} });
    await source.putRecord({ kind: "retention-turn", principal: "acme", name: "turn", body: {} });
    const target = sqlite("records.db");
    // A copy killed after the first version of faq: the run again puts only what is missing.
    await target.putRecord({
      kind: "dataset",
      principal: "acme",
      name: "faq",
      body: { cases: [1] },
      meta: { cases: 1 },
    });
    const report = await migrateStores(source, target);
    expect(report.records).toEqual({ copied: 2, present: 1, mismatched: [] });
    for (const version of [1, 2]) {
      const copy = await target.getRecord({ kind: "dataset", principal: "acme", name: "faq", version });
      const original = await source.getRecord({ kind: "dataset", principal: "acme", name: "faq", version });
      expect({ ...copy, createdAt: "" }).toEqual({ ...original, createdAt: "" });
    }
    expect((await target.getRecord({ kind: "experiment", principal: "acme", name: "e1" }))?.body).toEqual({
      dataset: ["faq", 2],
    });
    // Only the migrated principals' records, only datasets and experiments.
    expect(await target.getRecord({ kind: "dataset", principal: "other", name: "not-migrated" })).toBeUndefined();
    expect(await target.getRecord({ kind: "retention-turn", principal: "acme", name: "turn" })).toBeUndefined();
    expect((await migrateStores(source, target)).records).toEqual({ copied: 0, present: 3, mismatched: [] });
    // A name whose versions differ in the target is left alone.
    await source.putRecord({ kind: "dataset", principal: "acme", name: "other", body: { a: 1 } });
    await target.putRecord({ kind: "dataset", principal: "acme", name: "other", body: { a: 2 } });
    const differing = await migrateStores(source, target);
    expect(differing.records.mismatched).toEqual([
      { kind: "dataset", principal: "acme", name: "other", reason: "version 1 differs in the target" },
    ]);
  });
});
