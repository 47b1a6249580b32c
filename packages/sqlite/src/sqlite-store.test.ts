import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { isSemaError, MemoryStore, type Store, type TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { runStoreConformance } from "@sema-agent/core/testing/conformance";
import * as vitest from "vitest";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "./schema.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb, tempDir } from "./temp-dir.fixture.ts";

runStoreConformance("SqliteStore (file)", {
  test: vitest,
  create: async () => new SqliteStore({ path: tempDb() }),
  createLimited: async (limits) => new SqliteStore({ path: tempDb(), ...limits }),
  destroy: (store) => store.close(),
  openCorrupt: async () => {
    const path = join(tempDir(), "corrupt.db");
    writeFileSync(path, Buffer.alloc(16_384, 0x5a));
    return new SqliteStore({ path });
  },
});

// Group commit is on by default (above); the contract holds with it off and with a wider window too.
runStoreConformance("SqliteStore (file, group commit off)", {
  test: vitest,
  create: async () => new SqliteStore({ path: tempDb(), groupCommit: false }),
  destroy: (store) => store.close(),
});
// The writer on a thread of its own (issue 21): the same contract, errors included, through the thread hop.
runStoreConformance("SqliteStore (file, writer thread)", {
  test: vitest,
  create: async () => new SqliteStore({ path: tempDb(), writer: "thread" }),
  createLimited: async (limits) => new SqliteStore({ path: tempDb(), writer: "thread", ...limits }),
  destroy: (store) => store.close(),
  openCorrupt: async () => {
    const path = join(tempDir(), "corrupt.db");
    writeFileSync(path, Buffer.alloc(16_384, 0x5a));
    return new SqliteStore({ path, writer: "thread" });
  },
});
runStoreConformance("SqliteStore (file, writer thread, group commit off)", {
  test: vitest,
  create: async () => new SqliteStore({ path: tempDb(), writer: "thread", groupCommit: false }),
  destroy: (store) => store.close(),
});
runStoreConformance("SqliteStore (file, group commit in a 2 ms window)", {
  test: vitest,
  create: async () => new SqliteStore({ path: tempDb(), groupCommit: { windowMs: 2, maxBatch: 8 } }),
  destroy: (store) => store.close(),
});

/** Await `promise` and return the Sema error code it rejected with. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isSemaError(error) ? error.code : `not a SemaError: ${String(error)}`;
  }
  return "resolved";
}

function codeOfSync(open: () => unknown): string {
  try {
    open();
  } catch (error) {
    return isSemaError(error) ? error.code : `not a SemaError: ${String(error)}`;
  }
  return "returned";
}

function migrations(path: string): number[] {
  const db = new DatabaseSync(path);
  try {
    return db
      .prepare("SELECT version FROM schema_migrations ORDER BY version")
      .all()
      .map((row) => Number(row.version));
  } finally {
    db.close();
  }
}

describe("SqliteStore on a file", () => {
  it("keeps everything across close and reopen, and migrates only once", async () => {
    const path = tempDb();
    const first = new SqliteStore({ path });
    const [created] = await first.createTask({ taskId: "t1", created: make.created("alice") });
    await first.append("t1", [make.legStarted("l1"), make.turn(1)], { expectedSeq: 1 });
    const lease = await first.acquireLease("t1", { holder: { id: "host-a", pid: 7 }, ttlMs: 60_000 });
    await first.putSnapshot({ taskId: "t1", seq: 2, v: 1, state: { at: 2 } });
    const record = await first.getTask("t1");
    const events = await first.read("t1");
    await first.close();

    for (let reopen = 0; reopen < 2; reopen++) {
      const again = new SqliteStore({ path });
      expect(await again.getTask("t1")).toEqual(record);
      expect(await again.read("t1")).toEqual(events);
      expect(await again.latestSnapshot("t1")).toEqual({ taskId: "t1", seq: 2, v: 1, state: { at: 2 } });
      expect(await codeOf(again.acquireLease("t1", { holder: { id: "host-b" }, ttlMs: 1000 }))).toBe("LeaseHeld");
      expect(record.lease?.token).toBe(lease.token);
      await again.close();
    }
    expect(created?.seq).toBe(1);
    expect(migrations(path)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it("refuses a database whose schema is newer than the code, and leaves it alone", async () => {
    const path = tempDb();
    await new SqliteStore({ path }).close();
    const db = new DatabaseSync(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from the future', '')").run(
      SCHEMA_VERSION + 1,
    );
    db.close();
    let error: unknown;
    try {
      new SqliteStore({ path });
    } catch (caught) {
      error = caught;
    }
    expect(isSemaError(error, "StoreUnavailable")).toBe(true);
    expect(String((error as Error).message)).toContain(`version ${SCHEMA_VERSION + 1}, newer than`);
    expect(migrations(path)).toEqual([...Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), SCHEMA_VERSION + 1]);
  });

  it("gives StoreUnavailable for a file it cannot open", () => {
    expect(codeOfSync(() => new SqliteStore({ path: join(tempDir(), "missing", "dir", "sema.db") }))).toBe(
      "StoreUnavailable",
    );
    expect(codeOfSync(() => new SqliteStore({ path: tempDir() }))).toBe("StoreUnavailable");
  });

  it("gives StoreUnavailable when another connection holds the write lock past the busy timeout", async () => {
    const path = tempDb();
    const store = new SqliteStore({ path, busyTimeoutMs: 50 });
    await store.createTask({ taskId: "t1", created: make.created() });
    const other = new DatabaseSync(path);
    other.exec("BEGIN IMMEDIATE");
    const error = await store.append("t1", [make.note()], { expectedSeq: 1 }).catch((caught: unknown) => caught);
    expect(isSemaError(error, "StoreUnavailable")).toBe(true);
    expect((error as { isRetryable: boolean }).isRetryable).toBe(true);
    // Reads are not blocked by a writer (WAL), and the store recovers once the lock is gone.
    expect((await store.getTask("t1")).lastSeq).toBe(1);
    other.exec("ROLLBACK");
    other.close();
    await store.append("t1", [make.note()], { expectedSeq: 1 });
    await store.close();
  });

  it("works on a private in-memory database too", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    await store.createTask({ taskId: "t1", created: make.created() });
    expect((await store.read("t1")).map((event) => event.seq)).toEqual([1]);
    await store.close();
  });

  it("returns appended events that equal what read returns and share nothing with the caller's objects", async () => {
    const store = new SqliteStore({ path: tempDb() });
    await store.createTask({ taskId: "t1", created: make.created() });
    const input = { nested: { list: [1, { deep: "x" }] } };
    const turn = make.turn(1, "ok", [{ callId: "c1", name: "echo", input }]);
    const [stored] = await store.append("t1", [turn], { expectedSeq: 1 });
    expect(stored).toStrictEqual((await store.read("t1", { afterSeq: 1 }))[0]);
    (input.nested.list[1] as { deep: string }).deep = "changed";
    turn.usage.inputTokens = 99;
    expect(stored).toMatchObject({
      usage: { inputTokens: 10 },
      toolCalls: [{ input: { nested: { list: [1, { deep: "x" }] } } }],
    });
    await store.close();
  });

  it("reads on a node:sqlite without row arrays (Node 22) just the same", async () => {
    const probe = new DatabaseSync(":memory:");
    const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as { setReturnArrays?: unknown };
    probe.close();
    const saved = proto.setReturnArrays;
    const path = tempDb();
    const writer = new SqliteStore({ path });
    await writer.createTask({ taskId: "t1", created: make.created() });
    await writer.append("t1", [make.note("a"), make.note("b")], { expectedSeq: 1 });
    const expected = await writer.read("t1");
    delete proto.setReturnArrays;
    try {
      const reader = new SqliteStore({ path });
      expect(await reader.read("t1")).toStrictEqual(expected);
      await reader.close();
    } finally {
      proto.setReturnArrays = saved;
      await writer.close();
    }
  });

  it("returns exactly what MemoryStore returns: same objects, same key order", async () => {
    const clock = () => Date.parse("2025-06-01T12:00:00.000Z");
    const scenario = async (store: Store) => {
      const out: unknown[] = [];
      const more: TaskEvent[] = [make.input("parked", "objective", "in-1")];
      out.push(await store.createTask({ taskId: "t1", created: make.created("alice"), more }));
      await store.createTask({ taskId: "t0", created: { ...make.created("alice"), parentTaskId: "t1" } });
      const turn = make.turn(1, "héllo \u2028", [{ callId: "c1", name: "echo", input: { z: 1, a: [null, 2.5] } }]);
      out.push(await store.append("t1", [make.legStarted("l1"), turn, make.toolStarted("c1")], { expectedSeq: 2 }));
      out.push(
        await store.append("t1", [make.toolResult("c1"), make.legEnded("l1", "parked:input")], { expectedSeq: 5 }),
      );
      out.push(await store.read("t1"), await store.read("t1", { afterSeq: 2, limit: 2 }));
      out.push(await store.listTasks({ principal: "alice" }), await store.listRunnable());
      // Lease tokens are random; everything else must match.
      const { token: _token, ...lease } = await store.acquireLease("t1", { holder: { id: "h", pid: 3 }, ttlMs: 1000 });
      out.push(lease);
      const { lease: _lease, ...record } = await store.getTask("t1");
      out.push(record, await store.getTask("t0"), await store.listRunnable());
      return out;
    };
    const expected = await scenario(new MemoryStore({ now: clock }));
    const sqlite = new SqliteStore({ path: tempDb(), now: clock });
    const actual = await scenario(sqlite);
    await sqlite.close();
    expect(actual).toStrictEqual(expected);
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  });
});
