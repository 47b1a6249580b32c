/**
 * The tasks the store-operations tests (prune-kill, migrate-kill, on SQLite and PostgreSQL) seed:
 * three finished families — a lone task, one with a child, one whose input names a blob — and a
 * parked task, written to any store — and the SQLite file a migration copies from.
 */
import type { Store, TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { SqliteStore } from "@sema-agent/sqlite";

/** A leg that completes the task (never changed: appends only read it). */
export const ENDED: TaskEvent[] = [
  make.legStarted("l1"),
  { type: "task_completed", v: 1, result: "ok" },
  make.legEnded("l1"),
];

/** The SHA-256 of `bytes` in hex: a blob's digest. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
}

/** The ids `seedFamilies` wrote. */
export interface SeededTasks {
  /** The finished root tasks, in creation order. */
  roots: string[];
  /** Every task, children after their parent, the parked one last. */
  all: string[];
  /** The parked task. */
  live: string;
  /** The digest of the blob the third family names. */
  digest: string;
}

/**
 * Write three finished families and a parked task to `store`: the second family has a child,
 * the third names the blob `blob` in an input. Root `i` belongs to `principalOf(i)`, a child
 * to its parent's principal.
 */
export async function seedFamilies(
  store: Store,
  blob: Uint8Array,
  principalOf: (i: number) => string = () => "p1",
): Promise<SeededTasks> {
  const seeded: SeededTasks = { roots: [], all: [], live: "", digest: await sha256Hex(blob) };
  for (let i = 0; i < 3; i++) {
    const [created] = await store.createTask({ created: make.created(principalOf(i)) });
    const id = created?.taskId ?? "";
    seeded.roots.push(id);
    seeded.all.push(id);
    if (i === 1) {
      const [child] = await store.createTask({ created: { ...make.created(principalOf(i)), parentTaskId: id } });
      await store.append(child?.taskId ?? "", [...ENDED, { type: "parent_notified", v: 1 }], { expectedSeq: 1 });
      seeded.all.push(child?.taskId ?? "");
    }
    if (i === 2) {
      await store.putBlob?.({ digest: seeded.digest, bytes: blob });
      await store.append(id, [make.imageInput(seeded.digest, blob.length)], { expectedSeq: 1 });
      await store.append(id, ENDED, { expectedSeq: 2 });
    } else await store.append(id, ENDED, { expectedSeq: 1 });
  }
  const [parked] = await store.createTask({ created: make.created(principalOf(0)) });
  seeded.live = parked?.taskId ?? "";
  await store.append(seeded.live, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
  seeded.all.push(seeded.live);
  return seeded;
}

/**
 * The SQLite file at `path` a migration kill test copies from: `seedFamilies` (roots of p1 and
 * p2 in turn) written at a fixed time, and a push config of the family with the blob. Every task
 * id, as `SeededTasks.all`.
 */
export async function seedMigrationSource(path: string): Promise<string[]> {
  const store = new SqliteStore({ path, now: () => Date.parse("2026-01-01T00:00:00.000Z") });
  const tasks = await seedFamilies(store, Uint8Array.from([4, 5, 6]), (i) => (i % 2 === 0 ? "p1" : "p2"));
  await store.close();
  const pushes = new SqlitePushConfigStore({ path });
  await pushes.put({
    taskId: tasks.roots[2] ?? "",
    id: "hook",
    principal: "p1",
    url: "https://example.com/hook",
    token: "t",
    createdAt: "2026-01-01T00:00:00.000Z",
    deliveredSeq: 3,
  });
  await pushes.close();
  return tasks.all;
}
