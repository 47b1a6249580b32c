import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, type Store, type TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { importTask } from "@sema-agent/core/time-travel";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../../postgres/src/test-server.fixture.ts";
import { folderSink } from "./archive-sink.ts";
import { pruneStore } from "./prune.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-prune-"));
  dirs.push(dir);
  return dir;
}

/** How a task of a generated store stands. */
const KINDS = ["created", "running", "parked", "completed", "failed", "cancelled", "leased", "wake"] as const;
type Kind = (typeof KINDS)[number];
const FINISHED: readonly Kind[] = ["completed", "failed", "cancelled"];

const ends: Record<"completed" | "failed" | "cancelled", TaskEvent[]> = {
  completed: [make.legStarted("l1"), { type: "task_completed", v: 1, result: "ok" }, make.legEnded("l1")],
  failed: [{ type: "task_failed", v: 1, error: { code: "ModelError", message: "boom" } }],
  cancelled: [{ type: "task_cancelled", v: 1 }],
};

/** Bring a fresh task (its log at seq 1) to `kind`; a child's end is reported to its parent. */
async function bring(store: Store, id: string, kind: Kind, child: boolean): Promise<void> {
  const report: TaskEvent[] = child ? [{ type: "parent_notified", v: 1 }] : [];
  const append = (events: TaskEvent[]) => store.append(id, events, { expectedSeq: 1 });
  if (kind === "running") await append([make.legStarted("l1")]);
  else if (kind === "parked") await append([make.legStarted("l1"), make.legEnded("l1", "parked:input")]);
  else if (kind === "completed" || kind === "failed" || kind === "cancelled") await append([...ends[kind], ...report]);
  else if (kind === "leased") {
    await append([...ends.completed, ...report]);
    await store.acquireLease(id, { holder: { id: "w" }, ttlMs: 3_600_000 });
  } else if (kind === "wake") await append([...ends.completed, ...report, make.input("received", "wake", "w1")]);
}

const family = fc.record({
  kind: fc.constantFrom(...KINDS),
  children: fc.array(fc.constantFrom(...KINDS), { maxLength: 2 }),
  principal: fc.constantFrom("p1", "p2"),
});

async function checkRetention(
  store: Store,
  families: Array<{ kind: Kind; children: Kind[]; principal: string }>,
): Promise<void> {
  const built: Array<{ root: string; members: string[]; deletable: boolean }> = [];
  for (const spec of families) {
    const [created] = await store.createTask({ created: make.created(spec.principal) });
    const root = created?.taskId ?? "";
    const members = [root];
    for (const kind of spec.children) {
      const [child] = await store.createTask({ created: { ...make.created(spec.principal), parentTaskId: root } });
      const childId = child?.taskId ?? "";
      await bring(store, childId, kind, true);
      members.push(childId);
    }
    await bring(store, root, spec.kind, false);
    // The oracle, written apart from the stores' rule: finished, unleased, nothing pending, all of the family.
    const deletable = [spec.kind, ...spec.children].every((kind) => FINISHED.includes(kind));
    built.push({ root, members, deletable });
  }
  const logs = new Map<string, unknown>();
  for (const { members } of built) for (const id of members) logs.set(id, await store.read(id));
  const report = await pruneStore(store, { policy: { default: { olderThan: "0ms" } }, nowMs: Date.now() + 1000 });
  for (const { root, members, deletable } of built) {
    if (deletable) {
      expect(report.removed.map((task) => task.taskId)).toContain(root);
      for (const id of members) await expect(store.getTask(id)).rejects.toMatchObject({ code: "TaskNotFound" });
    } else {
      for (const id of members) expect(await store.read(id)).toEqual(logs.get(id));
    }
  }
}

describe("pruneStore", () => {
  it("never touches a live task, and removes every finished family (memory)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(family, { minLength: 1, maxLength: 6 }), async (families) => {
        await checkRetention(new MemoryStore(), families);
      }),
      { numRuns: 60 },
    );
  });

  it("never touches a live task, and removes every finished family (SQLite)", async () => {
    const dir = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(family, { minLength: 1, maxLength: 6 }), async (families) => {
        const store = new SqliteStore({ path: join(dir, `${n++}.db`) });
        try {
          await checkRetention(store, families);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 15 },
    );
  });

  // SEMA_REQUIRE_POSTGRES=1 makes an unreachable server a failure, not a skip.
  it.skipIf(skip)(
    "never touches a live task, and removes every finished family (PostgreSQL)",
    {
      timeout: 120_000,
    },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(family, { minLength: 1, maxLength: 6 }), async (families) => {
          const schema = freshSchema();
          const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
          try {
            await checkRetention(store, families);
          } finally {
            await store.close();
            await dropSchema(schema);
          }
        }),
        { numRuns: 10 },
      );
    },
  );

  it("archives before it deletes, in files sema import reads back", async () => {
    const store = new MemoryStore();
    const [created] = await store.createTask({ created: make.created("p1") });
    const id = created?.taskId ?? "";
    await store.append(id, ends.completed, { expectedSeq: 1 });
    const dir = join(tempDir(), "archive");
    const report = await pruneStore(store, {
      policy: { default: { olderThan: "1s", action: "archive" } },
      nowMs: Date.now() + 2000,
      archive: folderSink(dir),
    });
    expect(report.removed).toMatchObject([{ taskId: id, action: "archive", tasks: 1, events: 4 }]);
    expect(readdirSync(dir)).toEqual([`${id}.jsonl`]);
    const back = new MemoryStore();
    const imported = await importTask(back, readFileSync(join(dir, `${id}.jsonl`), "utf8"));
    expect((await back.getTask(imported.taskId)).summary.status).toBe("completed");
  });

  it("lists what is due on a dry run and changes nothing; a young task is not due", async () => {
    const store = new MemoryStore();
    const [created] = await store.createTask({ created: make.created("p1") });
    const id = created?.taskId ?? "";
    await store.append(id, ends.cancelled, { expectedSeq: 1 });
    const now = Date.now();
    const young = await pruneStore(store, { policy: { default: { olderThan: "1d" } }, nowMs: now + 1000 });
    expect(young.removed).toEqual([]);
    const dry = await pruneStore(store, {
      policy: { default: { olderThan: "1d" } },
      nowMs: now + 86_400_000 + 1000,
      dryRun: true,
    });
    expect(dry.removed).toMatchObject([{ taskId: id, status: "cancelled", action: "delete" }]);
    expect((await store.read(id)).length).toBe(2);
  });

  it("gives the space back: the SQLite file shrinks after most tasks are pruned", async () => {
    const path = join(tempDir(), "sema.db");
    const store = new SqliteStore({ path });
    try {
      const bulk = "x".repeat(4000);
      for (let i = 0; i < 200; i++) {
        const [created] = await store.createTask({ created: make.created("p1") });
        const id = created?.taskId ?? "";
        await store.append(id, [make.note(bulk), make.note(bulk), ...ends.completed], { expectedSeq: 1 });
      }
      await store.reclaimSpace();
      const before = statSync(path).size;
      const report = await pruneStore(store, { policy: { default: { olderThan: "0ms" } }, nowMs: Date.now() + 1000 });
      expect(report.removed.length).toBe(200);
      expect(report.reclaimed?.bytesAfter).toBeLessThan((report.reclaimed?.bytesBefore ?? 0) / 4);
      expect(statSync(path).size).toBeLessThan(before / 4);
    } finally {
      await store.close();
    }
  });
});
