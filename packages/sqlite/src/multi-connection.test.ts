/**
 * Several connections on one file: two stores in this process, and stores in child processes.
 * Nothing here goes through a shared in-process notifier, so what passes is what SQLite carries.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isSemaError, type StoredEvent } from "@sema-agent/core";
import { summarize } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";
import { watchUntil } from "./watch.fixture.ts";

const fixture = fileURLToPath(new URL("./cross-process.fixture.ts", import.meta.url));

/** The writer of the stores opened in the current block, the child processes' too. */
let writer: "main" | "thread" = "main";

/** Run the fixture in a child Node process; resolves when it exits 0, rejects with its stderr otherwise. */
function child(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--conditions=source", "--no-warnings", fixture, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, SEMA_TEST_WRITER: writer },
    });
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}

const notes = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => make.note(`${prefix}-${i}`));
const texts = (events: StoredEvent[]) => events.map((event) => (event.type === "engine_note" ? event.text : ""));

const open: SqliteStore[] = [];
function store(path: string): SqliteStore {
  const opened = new SqliteStore({ path, writer });
  open.push(opened);
  return opened;
}
afterEach(async () => {
  for (const opened of open.splice(0)) await opened.close();
});

// With writer threads, nothing a store commits is seen by its own read connection as its own:
// the watchers rely on the writer thread's view of other connections' commits (see writer-worker.ts).
for (const kind of ["main", "thread"] as const) {
  describe(`two stores on one file (writer ${kind})`, () => {
    beforeEach(() => {
      writer = kind;
    });

    it("let exactly one of two racing appends win, without interleaving", async () => {
      const path = tempDb();
      const [a, b] = [store(path), store(path)];
      await a.createTask({ taskId: "t1", created: make.created() });
      const results = await Promise.allSettled([
        a.append("t1", notes("A", 5), { expectedSeq: 1 }),
        b.append("t1", notes("B", 5), { expectedSeq: 1 }),
      ]);
      const rejected = results.filter((result) => result.status === "rejected");
      expect(rejected).toHaveLength(1);
      expect(isSemaError(rejected[0]?.reason, "SeqConflict")).toBe(true);
      expect(rejected[0]?.reason).toMatchObject({ expectedSeq: 1, actualSeq: 6 });
      const written = texts(await b.read("t1", { afterSeq: 1 }));
      const winner = written[0]?.slice(0, 1);
      expect(written).toEqual(Array.from({ length: 5 }, (_, i) => `${winner}-${i}`));
      expect(await a.read("t1")).toEqual(await b.read("t1"));
    });

    it("keep the task summary exact while they take turns changing it", async () => {
      // Each store remembers the summary it wrote last; the other's writes must still be seen.
      const path = tempDb();
      const [a, b] = [store(path), store(path)];
      await a.createTask({ taskId: "t1", created: make.created() });
      const steps = [
        make.legStarted(),
        make.turn(1),
        make.input("received", "steer", "in-1"),
        make.turn(2),
        make.note(),
        make.input("applied", "steer", "in-1"),
        make.turn(3),
        make.legEnded("leg-1", "parked:interrupt"),
      ];
      let seq = 1;
      for (const [i, event] of steps.entries()) {
        const [writer, other] = i % 2 === 0 ? [a, b] : [b, a];
        await writer.append("t1", [event], { expectedSeq: seq++ });
        const expected = summarize(await a.read("t1"));
        expect((await writer.getTask("t1")).summary).toEqual(expected);
        expect((await other.getTask("t1")).summary).toEqual(expected);
      }
      expect((await a.getTask("t1")).summary).toMatchObject({ status: "parked", sessionSeq: 3, openInputs: {} });
      expect((await b.listRunnable()).map((record) => record.taskId)).toEqual([]);
      await b.append("t1", [make.input("parked", "steer", "in-2")], { expectedSeq: seq });
      expect((await a.listRunnable()).map((record) => record.taskId)).toEqual(["t1"]);
    });

    it("share one lease: the other store sees it held, then released, and refuses the old token", async () => {
      const path = tempDb();
      const [a, b] = [store(path), store(path)];
      await a.createTask({ taskId: "t1", created: make.created() });
      const lease = await a.acquireLease("t1", { holder: { id: "host-a" }, ttlMs: 60_000 });
      const held = await b
        .acquireLease("t1", { holder: { id: "host-b" }, ttlMs: 1000 })
        .catch((error: unknown) => error);
      expect(held).toMatchObject({ code: "LeaseHeld", holder: { id: "host-a" }, expiresAt: lease.expiresAt });
      expect((await b.listRunnable()).map((record) => record.taskId)).toEqual([]);
      await a.releaseLease("t1", lease.token);
      expect((await b.listRunnable()).map((record) => record.taskId)).toEqual(["t1"]);
      const taken = await b.acquireLease("t1", { holder: { id: "host-b" }, ttlMs: 60_000 });
      const lost = await a.append("t1", [make.note()], { expectedSeq: 1, leaseToken: lease.token }).catch((e) => e);
      expect(isSemaError(lost, "LeaseLost")).toBe(true);
      await a.append("t1", [make.note()], { expectedSeq: 1, leaseToken: taken.token });
      expect((await b.getTask("t1")).lastSeq).toBe(2);
    });

    it("wake a watcher on one store for an append through the other", async () => {
      const path = tempDb();
      const [a, b] = [store(path), store(path)];
      await a.createTask({ taskId: "t1", created: make.created() });
      // The append is made once the watcher has read the log so far, so it must be woken for it.
      const { live, seen } = watchUntil(a, "t1", 1, 3);
      await live;
      await b.append("t1", notes("b", 2), { expectedSeq: 1 });
      expect(await seen).toEqual([1, 2, 3]);
    });

    it("deliver the other store's append made before a watch starts at the seq this store wrote last", async () => {
      // Store a wrote seq 1 and knows it; b appends 2 and 3 while a watches nothing, so no poll
      // runs. A watch on a from seq 1 must not trust what a knows: it must find 2 and 3.
      const path = tempDb();
      const [a, b] = [store(path), store(path)];
      await a.createTask({ taskId: "t1", created: make.created() });
      await b.append("t1", notes("b", 2), { expectedSeq: 1 });
      const controller = new AbortController();
      const seen: number[] = [];
      for await (const event of a.watch("t1", { afterSeq: 1, signal: controller.signal })) {
        seen.push(event.seq);
        if (event.seq === 3) controller.abort();
      }
      expect(seen).toEqual([2, 3]);
    });

    it("deliver the other store's append to a watch that starts, while this store polls, at the seq it wrote last", async () => {
      // a polls (a watch on t2 holds its poller), so a watch trusts what a knows of t1 without
      // asking SQLite; b's append lands after a's last write to t1 and must still be delivered.
      const path = tempDb();
      const [a, b] = [store(path), store(path)];
      await a.createTask({ taskId: "t1", created: make.created() });
      await a.createTask({ taskId: "t2", created: make.created() });
      const other = watchUntil(a, "t2", 1, 2);
      await other.live;
      await a.append("t1", notes("a", 1), { expectedSeq: 1 });
      await b.append("t1", notes("b", 2), { expectedSeq: 2 });
      const controller = new AbortController();
      const seen: number[] = [];
      for await (const event of a.watch("t1", { afterSeq: 2, signal: controller.signal })) {
        seen.push(event.seq);
        if (event.seq === 4) controller.abort();
      }
      expect(seen).toEqual([3, 4]);
      await a.append("t2", notes("a", 1), { expectedSeq: 1 });
      expect(await other.seen).toEqual([1, 2]);
    });
  });

  describe(`stores in other processes (writer ${kind})`, () => {
    beforeEach(() => {
      writer = kind;
    });

    it("deliver another process's appends to a watcher, each once and in order", async () => {
      const path = tempDb();
      const parent = store(path);
      await parent.createTask({ taskId: "t1", created: make.created() });
      const controller = new AbortController();
      const seen: StoredEvent[] = [];
      const watching = (async () => {
        for await (const event of parent.watch("t1", { signal: controller.signal })) {
          seen.push(event);
          if (event.seq === 21) controller.abort();
        }
      })();
      const timeout = setTimeout(() => controller.abort(), 20_000);
      await child("append", path, "t1", "20");
      await watching;
      clearTimeout(timeout);
      expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      expect(texts(seen.slice(1))).toEqual(Array.from({ length: 20 }, (_, i) => `child-${i}`));
      expect(seen).toEqual(await parent.read("t1"));
    });

    it("serialize writers in several processes into gapless, contiguous batches", async () => {
      const path = tempDb();
      const parent = store(path);
      await parent.createTask({ taskId: "t1", created: make.created() });
      await Promise.all([
        child("race", path, "t1", "15", "w0"),
        child("race", path, "t1", "15", "w1"),
        child("race", path, "t1", "15", "w2"),
      ]);
      const events = await parent.read("t1");
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 1 + 3 * 15 * 3 }, (_, i) => i + 1));
      const written = texts(events.slice(1));
      for (let i = 0; i < written.length; i += 3) {
        const batch = written[i]?.split("-")[0];
        expect(written.slice(i, i + 3)).toEqual([`${batch}-0`, `${batch}-1`, `${batch}-2`]);
      }
      expect(new Set(written).size).toBe(written.length);
    });
  });
}
