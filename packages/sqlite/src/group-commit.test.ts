// Group commit in SqliteStore: concurrent writes share a transaction, each stays atomic and
// conditional on its own, a caller hears back only after the COMMIT, and a failed transaction
// fails every caller of its batch with the retryable StoreUnavailable.
import { isSemaError, type StoredEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BatchWriter } from "./batch-writer.ts";
import { openDatabase } from "./connection.ts";
import { rollback } from "./schema.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

// The store's clock also times its batches (at most ~4 ms each): a clock that stands still keeps
// a loaded machine from splitting the batches these tests count.
const now = () => Date.parse("2026-12-01T12:00:00Z");
const open: SqliteStore[] = [];
type Options = ConstructorParameters<typeof SqliteStore>[0];
/** The writer of the stores `store` opens in the current block. */
let writer: NonNullable<Options["writer"]> = "main";
function store(path: string, groupCommit?: Options["groupCommit"]): SqliteStore {
  const opened = new SqliteStore(
    groupCommit === undefined ? { path, now, writer } : { path, now, writer, groupCommit },
  );
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
    return isSemaError(error) ? `${error.code}${error.isRetryable ? " (retryable)" : ""}` : String(error);
  }
  return "resolved";
}

async function tasks(target: SqliteStore, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `t${i}`);
  for (const taskId of ids) await target.createTask({ taskId, created: make.created("p") });
  return ids;
}

// The store-level behaviour holds alike with the writes on the main thread and on the writer thread.
for (const kind of ["main", "thread"] as const) {
  describe(`group commit (SqliteStore, writer ${kind})`, () => {
    beforeEach(() => {
      writer = kind;
    });
    it("coalesces the appends of one tick into one transaction, and each caller gets its own events", async () => {
      const s = store(tempDb());
      const ids = await tasks(s, 50);
      const before = s.writeStats;
      const results = await Promise.all(
        ids.map((taskId) => s.append(taskId, [make.note(`${taskId}-a`), make.note(`${taskId}-b`)], { expectedSeq: 1 })),
      );
      expect(s.writeStats.writes - before.writes).toBe(50);
      expect(s.writeStats.commits - before.commits).toBe(1);
      results.forEach((stored, i) => {
        expect(stored.map((e) => [e.taskId, e.seq])).toEqual([
          [`t${i}`, 2],
          [`t${i}`, 3],
        ]);
      });
      for (const taskId of ids) expect((await s.read(taskId)).map((e) => e.seq)).toEqual([1, 2, 3]);
    });

    it("with group commit off, every write is its own transaction", async () => {
      const s = store(tempDb(), false);
      const ids = await tasks(s, 10);
      const before = s.writeStats;
      await Promise.all(ids.map((taskId) => s.append(taskId, [make.note()], { expectedSeq: 1 })));
      expect(s.writeStats.commits - before.commits).toBe(10);
    });

    it("a conflict or a lost lease fails that append alone; the rest of the batch commits", async () => {
      const s = store(tempDb());
      const ids = await tasks(s, 4);
      const lease = await s.acquireLease("t3", { holder: { id: "h" }, ttlMs: 60_000 });
      await s.releaseLease("t3", lease.token);
      const before = s.writeStats.commits;
      const outcomes = await Promise.allSettled([
        s.append("t0", [make.note("first")], { expectedSeq: 1 }),
        // The same task and seq in the same batch: the second finds seq 2 and conflicts.
        s.append("t0", [make.note("second")], { expectedSeq: 1 }),
        s.append("t1", [make.note("stale")], { expectedSeq: 7 }),
        s.append("t2", [make.note("fine")], { expectedSeq: 1 }),
        s.append("t3", [make.note("leased")], { expectedSeq: 1, leaseToken: lease.token }),
        s.append("missing", [make.note()], { expectedSeq: 1 }),
      ]);
      expect(s.writeStats.commits - before).toBe(1);
      const codes = outcomes.map((o) =>
        o.status === "fulfilled" ? "ok" : isSemaError(o.reason) ? o.reason.code : String(o.reason),
      );
      expect(codes).toEqual(["ok", "SeqConflict", "SeqConflict", "ok", "LeaseLost", "TaskNotFound"]);
      const notesOf = async (taskId: string) =>
        (await s.read(taskId)).flatMap((e: StoredEvent) => (e.type === "engine_note" ? [e.text] : []));
      expect(await notesOf("t0")).toEqual(["first"]);
      expect(await notesOf("t1")).toEqual([]);
      expect(await notesOf("t2")).toEqual(["fine"]);
      expect(await notesOf("t3")).toEqual([]);
      expect(ids).toHaveLength(4);
    });

    it("a caller hears back only after the COMMIT: another connection sees the events by then, not before", async () => {
      const path = tempDb();
      const writer = store(path);
      const reader = store(path, false);
      await tasks(writer, 1);
      const pending = writer.append("t0", [make.note("x")], { expectedSeq: 1 });
      // Queued for the end of the tick: nothing is written yet.
      expect((await reader.getTask("t0")).lastSeq).toBe(1);
      await pending;
      expect((await reader.getTask("t0")).lastSeq).toBe(2);
    });

    it("leases and snapshots go through the same batches", async () => {
      const s = store(tempDb());
      const ids = await tasks(s, 20);
      const before = s.writeStats.commits;
      const leases = await Promise.all(
        ids.map((taskId) => s.acquireLease(taskId, { holder: { id: "w" }, ttlMs: 5000 })),
      );
      await Promise.all(ids.map((taskId, i) => s.renewLease(taskId, leases[i]?.token ?? "", 9000)));
      await Promise.all(ids.map((taskId) => s.putSnapshot({ taskId, seq: 1, v: 1, state: { n: 1 } })));
      await Promise.all(ids.map((taskId, i) => s.releaseLease(taskId, leases[i]?.token ?? "")));
      expect(s.writeStats.commits - before).toBe(4);
      for (const taskId of ids) expect((await s.getTask(taskId)).lease).toBeUndefined();
      expect(await codeOf(s.renewLease("t0", leases[0]?.token ?? "", 1000))).toBe("LeaseLost");
    });

    it("a transaction that cannot start fails every caller of its batch with the retryable StoreUnavailable", async () => {
      const path = tempDb();
      const s = new SqliteStore({ path, busyTimeoutMs: 0, now, writer });
      open.push(s);
      await tasks(s, 3);
      // Another connection holds the write lock: BEGIN IMMEDIATE fails at once (no busy wait).
      const { db: other } = openDatabase(path, 0, Date.now);
      other.exec("BEGIN IMMEDIATE");
      try {
        const codes = await Promise.all(
          ["t0", "t1", "t2"].map((t) => codeOf(s.append(t, [make.note()], { expectedSeq: 1 }))),
        );
        expect(codes).toEqual(Array(3).fill("StoreUnavailable (retryable)"));
      } finally {
        rollback(other);
        other.close();
      }
      for (const taskId of ["t0", "t1", "t2"]) expect((await s.getTask(taskId)).lastSeq).toBe(1);
    });

    it("close commits what is queued before it closes", async () => {
      const path = tempDb();
      const s = new SqliteStore({ path, groupCommit: { windowMs: 200 }, writer });
      await tasks(s, 1);
      const pending = s.append("t0", [make.note("late")], { expectedSeq: 1 });
      await s.close();
      expect((await pending).map((e) => e.seq)).toEqual([2]);
      const again = store(path);
      expect((await again.getTask("t0")).lastSeq).toBe(2);
    });
  });
}

describe("group commit (BatchWriter)", () => {
  it("a COMMIT that fails rolls the whole batch back and fails each of its callers with StoreUnavailable", async () => {
    const { db, statements } = openDatabase(tempDb(), 1000, Date.now);
    try {
      db.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
      db.exec("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id))");
      db.exec("CREATE TABLE kept (id INTEGER PRIMARY KEY)");
      // Checked at COMMIT, so the COMMIT itself fails.
      db.exec("PRAGMA defer_foreign_keys = ON");
      const writer = new BatchWriter(
        {
          statements: () => statements,
          rollback: () => rollback(db),
          storeError: (error) => new Error(`store: ${String(error)}`),
        },
        { windowMs: 0, maxBatch: 256 },
      );
      const outcomes = await Promise.allSettled([
        writer.submit(() => db.prepare("INSERT INTO kept (id) VALUES (1)").run()),
        writer.submit(() => db.prepare("INSERT INTO child (id, parent) VALUES (1, 42)").run()),
        writer.submit(() => db.prepare("INSERT INTO kept (id) VALUES (2)").run()),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
      expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : ""))).toEqual(
        Array(3).fill(expect.stringContaining("FOREIGN KEY")),
      );
      expect(db.prepare("SELECT count(*) AS n FROM kept").get()).toEqual({ n: 0 });
      expect(writer.commits).toBe(0);
    } finally {
      db.close();
    }
  });

  it("a lone write runs without a savepoint: its failure, or its COMMIT's, rolls back all it wrote", async () => {
    const { db, statements } = openDatabase(tempDb(), 1000, Date.now);
    try {
      db.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
      db.exec("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id))");
      db.exec("CREATE TABLE kept (id INTEGER PRIMARY KEY)");
      db.exec("PRAGMA defer_foreign_keys = ON");
      let savepoints = 0;
      const counting = Object.create(statements, {
        savepoint: {
          value: {
            run: () => {
              savepoints++;
              return statements.savepoint.run();
            },
          },
        },
      }) as typeof statements;
      const writer = new BatchWriter(
        {
          statements: () => counting,
          rollback: () => rollback(db),
          storeError: (error) => new Error(`store: ${String(error)}`),
        },
        { windowMs: 0, maxBatch: 256 },
      );
      const insert = db.prepare("INSERT INTO kept (id) VALUES (?)");
      const thrown = writer.submit(() => {
        insert.run(1);
        throw new Error("refused");
      });
      await expect(thrown).rejects.toThrow("refused");
      // Fails at COMMIT (deferred foreign key): the store's error, and its row gone too.
      const failedCommit = writer.submit(() => {
        insert.run(2);
        db.prepare("INSERT INTO child (id, parent) VALUES (1, 42)").run();
      });
      await expect(failedCommit).rejects.toThrow("store: ");
      await writer.submit(() => insert.run(3));
      expect(db.prepare("SELECT id FROM kept").all()).toEqual([{ id: 3 }]);
      expect(writer.commits).toBe(1);
      expect(savepoints).toBe(0);
      // Two writes in one batch still get a savepoint each.
      await Promise.all([writer.submit(() => insert.run(4)), writer.submit(() => insert.run(5))]);
      expect(savepoints).toBe(2);
    } finally {
      db.close();
    }
  });

  it("a batch stops after its time budget and leaves the rest to the next tick, letting others run between", async () => {
    const { db, statements } = openDatabase(tempDb(), 1000, Date.now);
    try {
      db.exec("CREATE TABLE kept (id INTEGER PRIMARY KEY)");
      let clock = 0;
      const order: string[] = [];
      const writer = new BatchWriter(
        { statements: () => statements, rollback: () => rollback(db), storeError: (error) => error },
        { windowMs: 0, maxBatch: 256 },
        // Every write "takes" 1 ms of the injected clock: a batch holds 4 (the 4 ms budget).
        () => clock++,
      );
      const insert = db.prepare("INSERT INTO kept (id) VALUES (?)");
      const writes = Array.from({ length: 10 }, (_, i) =>
        writer.submit(() => insert.run(i)).then(() => order.push(`w${i}`)),
      );
      setImmediate(() => order.push("other"));
      await Promise.all(writes);
      expect(writer.commits).toBe(3);
      // The callback queued beside the first batch ran before the second batch.
      expect(order.indexOf("other")).toBeLessThan(order.indexOf("w4"));
      expect(db.prepare("SELECT count(*) AS n FROM kept").get()).toEqual({ n: 10 });
    } finally {
      db.close();
    }
  });

  it("refuses a bad group-commit setting with a ConfigError naming it", () => {
    const path = tempDb();
    const codeOfOpen = (groupCommit: unknown) => {
      try {
        new SqliteStore({ path, groupCommit: groupCommit as false }).close();
        return "opened";
      } catch (error) {
        return isSemaError(error) ? `${error.code}: ${error.message}` : String(error);
      }
    };
    expect(codeOfOpen({ windowMs: -1 })).toMatch(/^ConfigError: SqliteStore: groupCommit.windowMs/);
    expect(codeOfOpen({ maxBatch: 0 })).toMatch(/groupCommit.maxBatch must be a whole number/);
    expect(codeOfOpen({ maxBatch: 2.5, windowMs: Number.NaN })).toMatch(/windowMs .*; groupCommit.maxBatch/);
    expect(codeOfOpen({ window: 1 })).toMatch(/unknown keys window/);
    expect(codeOfOpen({ windowMs: 1, maxBatch: 1 })).toBe("opened");
  });

  it("refuses a bad writer with a ConfigError naming it, and a writer thread on a private database", () => {
    const codeOfOpen = (options: Partial<ConstructorParameters<typeof SqliteStore>[0]>) => {
      try {
        new SqliteStore({ path: tempDb(), ...options }).close();
        return "opened";
      } catch (error) {
        return isSemaError(error) ? `${error.code}: ${error.message}` : String(error);
      }
    };
    expect(codeOfOpen({ writer: "worker" as "thread" })).toBe(
      'ConfigError: SqliteStore: writer must be "main" or "thread"',
    );
    expect(codeOfOpen({ writer: "thread", path: ":memory:" })).toMatch(
      /^ConfigError: SqliteStore: writer is "thread", which needs a database file: ":memory:" is private/,
    );
    expect(codeOfOpen({ writer: "main", path: ":memory:" })).toBe("opened");
    expect(codeOfOpen({ writer: "thread" })).toBe("opened");
  });
});
