// The writer thread's edges: a thread that dies fails its pending and later writes with
// StoreUnavailable (never a hang), a store's own commits through its thread wake no watcher while
// another connection's do, and close drains before the thread ends.
import { isSemaError } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";
import { ThreadWriter } from "./thread-writer.ts";
import { watchUntil } from "./watch.fixture.ts";
import type { AppendCommand } from "./write-commands.ts";

const open: SqliteStore[] = [];
function store(path: string, options: Partial<ConstructorParameters<typeof SqliteStore>[0]> = {}): SqliteStore {
  const opened = new SqliteStore({ path, writer: "thread", ...options });
  open.push(opened);
  return opened;
}
afterEach(async () => {
  for (const opened of open.splice(0)) await opened.close();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isSemaError(error) ? `${error.code}: ${error.message}` : `not a SemaError: ${String(error)}`;
  }
  return "resolved";
}

function dyingWriter(path: string) {
  let died = 0;
  const writer = new ThreadWriter({
    path,
    busyTimeoutMs: 0,
    groupCommit: { windowMs: 0, maxBatch: 256 },
    pollMs: 25,
    timeBatches: true,
    now: Date.now,
    foreignCommit: () => undefined,
    died: () => {
      died++;
    },
    script: new URL("./dying-writer.fixture.ts", import.meta.url),
  });
  return { writer, died: () => died };
}

const append: AppendCommand = { kind: "append", taskId: "t1", events: [make.note()], expectedSeq: 1 };

describe("a writer thread that dies", () => {
  for (const [how, path, said] of [
    ["exits", "sema.db", "its writer thread exited (code 7)"],
    ["throws", "sema.db-throw", "its writer thread failed: the writer broke"],
  ] as const) {
    it(`${how}: its pending writes and every later one fail with StoreUnavailable, and close returns`, async () => {
      const { writer, died } = dyingWriter(path);
      const pending = [writer.submit(append), writer.submit({ ...append, taskId: "t2" })];
      const codes = await Promise.all(pending.map(codeOf));
      expect(codes).toEqual(Array(2).fill(`StoreUnavailable: SQLite store ${path}: ${said}`));
      expect(writer.dead).toBe(true);
      expect(died()).toBe(1);
      expect(await codeOf(writer.submit(append))).toBe(`StoreUnavailable: SQLite store ${path}: ${said}`);
      await writer.close();
    });
  }
});

describe("SqliteStore with a writer thread", () => {
  it("wakes no watcher for its own commits, and a watcher for another connection's", async () => {
    const path = tempDb();
    const s = store(path, { pollMs: 2 });
    await s.createTask({ taskId: "watched", created: make.created() });
    await s.createTask({ taskId: "busy", created: make.created() });
    let reads = 0;
    const read = s.read.bind(s);
    s.read = (...args) => {
      reads++;
      return read(...args);
    };
    const { live, seen } = watchUntil(s, "watched", 1, 2);
    await live;
    // Many polls' worth of own commits to another task: none of them is news for the watcher.
    let seq = 1;
    for (let i = 0; i < 200; i++)
      seq = (await s.append("busy", [make.note()], { expectedSeq: seq })).at(-1)?.seq ?? seq;
    const readsBefore = reads;
    // Another connection's append wakes it through the writer thread's poll.
    const other = new SqliteStore({ path });
    await other.append("watched", [make.note("from the other")], { expectedSeq: 1 });
    await other.close();
    expect(await seen).toEqual([1, 2]);
    // Read once at the start, once per wake: its own 200 commits woke it never.
    expect(readsBefore).toBe(1);
    expect(reads).toBe(2);
  });

  it("fails a write that cannot cross to the thread alone, not the others of its tick", async () => {
    const s = store(tempDb());
    await s.createTask({ taskId: "t1", created: make.created() });
    await s.createTask({ taskId: "t2", created: make.created() });
    const holder = { id: "h", host: "box", toJSON: () => "not data" } as unknown as { id: string };
    const [refused, appended] = await Promise.allSettled([
      s.acquireLease("t1", { holder, ttlMs: 1000 }),
      s.append("t2", [make.note()], { expectedSeq: 1 }),
    ]);
    expect(refused).toMatchObject({ status: "rejected", reason: { name: "DataCloneError" } });
    expect(appended).toMatchObject({ status: "fulfilled", value: [{ seq: 2 }] });
    expect((await s.getTask("t1")).lease).toBeUndefined();
  });

  it("commits writes made just before close, then ends its thread", async () => {
    const path = tempDb();
    const s = store(path, { groupCommit: { windowMs: 200 } });
    await s.createTask({ taskId: "t1", created: make.created() });
    const pending = s.append("t1", [make.note("late")], { expectedSeq: 1 });
    await s.close();
    expect((await pending).map((e) => e.seq)).toEqual([2]);
    expect(await codeOf(s.append("t1", [make.note()], { expectedSeq: 2 }))).toBe(
      `StoreUnavailable: the SQLite store ${path} is closed`,
    );
    const again = new SqliteStore({ path });
    expect((await again.getTask("t1")).lastSeq).toBe(2);
    await again.close();
  });
});
