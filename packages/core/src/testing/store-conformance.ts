/**
 * The shared conformance suite every `Store` adapter runs (memory, SQLite, PostgreSQL …). It uses
 * only the port, real time (short lease TTLs) and vitest, so any adapter can call it unchanged:
 *
 *   import * as vitest from "vitest";
 *   runStoreConformance("SqliteStore", { test: vitest, create: async () => new SqliteStore({ path }) });
 *
 * The test functions are passed in, so loading `@sema-agent/core/testing` (for `ScriptedModel`,
 * say, in the offline demo) never loads a test runner.
 */
import type * as Vitest from "vitest";
import type { Store } from "../ports/store.ts";
import { isSemaError, type SemaErrorCode } from "../protocol/errors.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";

/** The parts of vitest the suite uses (any runner with the same API works). */
export interface TestApi {
  describe: typeof Vitest.describe;
  it: typeof Vitest.it;
  expect: typeof Vitest.expect;
  afterEach: typeof Vitest.afterEach;
}

export interface StoreConformanceOptions {
  /** The test runner's functions, usually `import * as vitest from "vitest"`. */
  test: TestApi;
  /** A fresh, empty store for each test. */
  create(): Promise<Store>;
  /** Called after each test with what `create` returned (close it, remove its files). */
  destroy?(store: Store): Promise<void>;
  /** Open a store over deliberately corrupted storage; it or its first call must fail with a typed error. */
  openCorrupt?(): Promise<Store>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function seqs(events: StoredEvent[]): number[] {
  return events.map((event) => event.seq);
}

function notes(prefix: string, n: number): TaskEvent[] {
  return Array.from({ length: n }, (_, i) => make.note(`${prefix}-${i}`));
}

async function collect(iterable: AsyncIterable<StoredEvent>, count: number, timeoutMs = 5000): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const timeout = sleep(timeoutMs).then(() => "timeout" as const);
  const iterator = iterable[Symbol.asyncIterator]();
  while (out.length < count) {
    const next = await Promise.race([iterator.next(), timeout]);
    if (next === "timeout") throw new Error(`watch delivered ${out.length} of ${count} events before the timeout`);
    if (next.done === true) break;
    out.push(next.value);
  }
  return out;
}

export function runStoreConformance(name: string, options: StoreConformanceOptions): void {
  const { describe, it, expect, afterEach } = options.test;
  async function expectCode(promise: Promise<unknown>, code: SemaErrorCode): Promise<unknown> {
    try {
      await promise;
    } catch (error) {
      expect(isSemaError(error), `expected a SemaError ${code}, got ${String(error)}`).toBe(true);
      expect((error as { code: string }).code).toBe(code);
      return error;
    }
    throw new Error(`expected ${code}, but the call succeeded`);
  }

  describe(`Store conformance: ${name}`, () => {
    const opened: Store[] = [];
    async function fresh(): Promise<Store> {
      const store = await options.create();
      opened.push(store);
      return store;
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) {
        if (options.destroy !== undefined) await options.destroy(store);
        else await store.close();
      }
    });

    async function newTask(store: Store, principal = "p1"): Promise<string> {
      const [created] = await store.createTask({ created: make.created(principal) });
      if (created === undefined) throw new Error("createTask returned no event");
      return created.taskId;
    }

    describe("create and read", () => {
      it("creates a task whose first events are stamped 1, 2 … with its id and time", async () => {
        const store = await fresh();
        const before = Date.now();
        const stored = await store.createTask({
          taskId: "task-a",
          created: make.created("alice"),
          more: [make.input("parked", "objective", "in-1")],
        });
        expect(seqs(stored)).toEqual([1, 2]);
        for (const event of stored) {
          expect(event.taskId).toBe("task-a");
          expect(Date.parse(event.at)).toBeGreaterThanOrEqual(before - 1000);
          expect(event.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
        }
        expect(stored[0]).toMatchObject(make.created("alice"));
        const record = await store.getTask("task-a");
        expect(record).toMatchObject({ taskId: "task-a", principal: "alice", lastSeq: 2 });
        expect(record.summary.status).toBe("created");
        expect(record.summary.runnable).toBe(true);
      });

      it("mints a task id when none is given, and refuses a taken one", async () => {
        const store = await fresh();
        const a = await newTask(store);
        const b = await newTask(store);
        expect(a).not.toBe(b);
        await expectCode(store.createTask({ taskId: a, created: make.created() }), "TaskExists");
        expect((await store.read(a)).length).toBe(1);
      });

      it("keeps the log gapless and in order across appends, and pages reads", async () => {
        const store = await fresh();
        const id = await newTask(store);
        let last = 1;
        for (let batch = 0; batch < 5; batch++) {
          const stored = await store.append(id, notes(`b${batch}`, batch + 1), { expectedSeq: last });
          expect(seqs(stored)).toEqual(Array.from({ length: batch + 1 }, (_, i) => last + i + 1));
          last += batch + 1;
        }
        const all = await store.read(id);
        expect(seqs(all)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
        expect(seqs(await store.read(id, { afterSeq: 10 }))).toEqual([11, 12, 13, 14, 15, 16]);
        expect(seqs(await store.read(id, { afterSeq: 3, limit: 4 }))).toEqual([4, 5, 6, 7]);
        expect(await store.read(id, { afterSeq: 16 })).toEqual([]);
        expect((await store.getTask(id)).lastSeq).toBe(16);
      });

      it("stores exactly what was appended, whatever the caller does to its objects afterwards", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const list: Array<number | string | null> = [1, "two", null];
        const turn = make.turn(1, "héllo \u2028 <b>", [{ callId: "c1", name: "echo", input: { nested: { list } } }]);
        await store.append(id, [turn], { expectedSeq: 1 });
        const expected = structuredClone(turn);
        list.push("mutated");
        turn.text = "mutated";
        const [read] = await store.read(id, { afterSeq: 1 });
        expect(read).toEqual({ taskId: id, seq: 2, at: read?.at, ...expected });
        try {
          (read as { text: string }).text = "mutated through a read";
        } catch {
          // a frozen event is fine too
        }
        expect((await store.read(id, { afterSeq: 1 }))[0]).toMatchObject({ text: expected.text });
      });

      it("appending nothing is a no-op that still checks expectedSeq", async () => {
        const store = await fresh();
        const id = await newTask(store);
        expect(await store.append(id, [], { expectedSeq: 1 })).toEqual([]);
        await expectCode(store.append(id, [], { expectedSeq: 0 }), "SeqConflict");
      });

      it("says TaskNotFound for an unknown task", async () => {
        const store = await fresh();
        await expectCode(store.getTask("nope"), "TaskNotFound");
        await expectCode(store.read("nope"), "TaskNotFound");
        await expectCode(store.append("nope", [make.note()], { expectedSeq: 0 }), "TaskNotFound");
        await expectCode(store.acquireLease("nope", { holder: { id: "h" }, ttlMs: 1000 }), "TaskNotFound");
      });
    });

    describe("conditional append", () => {
      it("refuses a stale expectedSeq with SeqConflict and writes nothing", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await store.append(id, [make.note()], { expectedSeq: 1 });
        const error = await expectCode(store.append(id, notes("late", 3), { expectedSeq: 1 }), "SeqConflict");
        expect(error).toMatchObject({ expectedSeq: 1, actualSeq: 2, isRetryable: true });
        expect((await store.read(id)).length).toBe(2);
      });

      it("lets exactly one of two racing writers win, without interleaving", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const results = await Promise.allSettled([
          store.append(id, notes("A", 5), { expectedSeq: 1 }),
          store.append(id, notes("B", 5), { expectedSeq: 1 }),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const rejected = results.find((r) => r.status === "rejected");
        expect(isSemaError(rejected?.reason, "SeqConflict")).toBe(true);
        const texts = (await store.read(id, { afterSeq: 1 })).map((e) => (e.type === "engine_note" ? e.text : ""));
        expect(texts).toHaveLength(5);
        const prefix = texts[0]?.slice(0, 1);
        expect(texts).toEqual(Array.from({ length: 5 }, (_, i) => `${prefix}-${i}`));
      });

      it("serializes many retrying writers into contiguous, gapless batches", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const writer = async (w: number) => {
          for (;;) {
            const { lastSeq } = await store.getTask(id);
            try {
              return await store.append(id, notes(`w${w}`, 3), { expectedSeq: lastSeq });
            } catch (error) {
              if (!isSemaError(error, "SeqConflict")) throw error;
            }
          }
        };
        await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
        const events = await store.read(id);
        expect(seqs(events)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        const texts = events.slice(1).map((e) => (e.type === "engine_note" ? e.text : ""));
        for (let i = 0; i < texts.length; i += 3) {
          const w = texts[i]?.split("-")[0];
          expect(texts.slice(i, i + 3)).toEqual([`${w}-0`, `${w}-1`, `${w}-2`]);
        }
      });
    });

    describe("validation", () => {
      it("rejects an invalid event with the failing path and writes nothing of its batch", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const bad = { ...make.turn(1), usage: { inputTokens: -1, outputTokens: 0 } } as TaskEvent;
        const error = await expectCode(
          store.append(id, [make.note(), bad, make.note()], { expectedSeq: 1 }),
          "InvalidEvent",
        );
        expect(error).toMatchObject({ path: "usage.inputTokens" });
        expect((error as { details: { index: number } }).details.index).toBe(1);
        expect((await store.getTask(id)).lastSeq).toBe(1);
      });

      it("rejects unknown arms, unknown keys, undefined-valued keys, wrong versions and stamped identity", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const cases: Array<[unknown, string]> = [
          [{ type: "no_such_event", v: 1 }, "type"],
          [{ ...make.note(), extra: true }, ""],
          [{ ...make.note(), data: undefined }, "data"],
          [{ ...make.note(), v: 2 }, "v"],
          [{ ...make.note(), seq: 7 }, ""],
          [
            {
              type: "human_input",
              inputId: "x",
              carrier: "steer",
              source: "user",
              delivery: "received",
              sessionSeq: 0,
            },
            "v",
          ],
        ];
        for (const [event, path] of cases) {
          const error = await expectCode(store.append(id, [event as TaskEvent], { expectedSeq: 1 }), "InvalidEvent");
          expect((error as { path: string }).path).toBe(path);
        }
        await expectCode(store.createTask({ created: { ...make.created(), principal: "" } }), "InvalidEvent");
        expect((await store.read(id)).length).toBe(1);
      });
    });

    describe("leases", () => {
      it("gives a live lease to one holder only, and reports who holds it", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const lease = await store.acquireLease(id, { holder: { id: "host-a", host: "m1", pid: 11 }, ttlMs: 5000 });
        expect(lease).toMatchObject({ taskId: id, holder: { id: "host-a", host: "m1", pid: 11 } });
        expect(Date.parse(lease.expiresAt)).toBeGreaterThan(Date.now());
        const error = await expectCode(store.acquireLease(id, { holder: { id: "host-b" }, ttlMs: 5000 }), "LeaseHeld");
        expect(error).toMatchObject({ holder: { id: "host-a" }, expiresAt: lease.expiresAt });
        expect((await store.getTask(id)).lease?.holder.id).toBe("host-a");
      });

      it("lets another holder take an expired lease; the old holder then loses it", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const first = await store.acquireLease(id, { holder: { id: "host-a" }, ttlMs: 60 });
        await store.append(id, [make.note("under lease")], { expectedSeq: 1, leaseToken: first.token });
        await sleep(120);
        const second = await store.acquireLease(id, { holder: { id: "host-b" }, ttlMs: 5000 });
        expect(second.token).not.toBe(first.token);
        await expectCode(store.renewLease(id, first.token, 5000), "LeaseLost");
        await expectCode(
          store.append(id, [make.note("zombie")], { expectedSeq: 2, leaseToken: first.token }),
          "LeaseLost",
        );
        expect((await store.getTask(id)).lastSeq).toBe(2);
        await store.append(id, [make.note("new holder")], { expectedSeq: 2, leaseToken: second.token });
      });

      it("renews a live lease, and refuses to renew an expired one", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const lease = await store.acquireLease(id, { holder: { id: "host-a" }, ttlMs: 80 });
        await sleep(40);
        const renewed = await store.renewLease(id, lease.token, 200);
        expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
        await sleep(60);
        await store.append(id, [make.note()], { expectedSeq: 1, leaseToken: lease.token });
        await sleep(200);
        await expectCode(store.renewLease(id, lease.token, 200), "LeaseLost");
      });

      it("lets a caller take a live lease over only from the holder it names", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const dead = await store.acquireLease(id, { holder: { id: "host-dead", host: "m1", pid: 1 }, ttlMs: 60_000 });
        await expectCode(
          store.acquireLease(id, { holder: { id: "host-b" }, ttlMs: 5000, replaceHolderId: "someone-else" }),
          "LeaseHeld",
        );
        const taken = await store.acquireLease(id, {
          holder: { id: "host-b" },
          ttlMs: 5000,
          replaceHolderId: "host-dead",
        });
        expect(taken.holder.id).toBe("host-b");
        await expectCode(store.append(id, [make.note()], { expectedSeq: 1, leaseToken: dead.token }), "LeaseLost");
      });

      it("releases only with the right token", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const lease = await store.acquireLease(id, { holder: { id: "host-a" }, ttlMs: 5000 });
        await store.releaseLease(id, "not-the-token");
        await expectCode(store.acquireLease(id, { holder: { id: "host-b" }, ttlMs: 5000 }), "LeaseHeld");
        await store.releaseLease(id, lease.token);
        await store.acquireLease(id, { holder: { id: "host-b" }, ttlMs: 5000 });
        await expectCode(store.append(id, [make.note()], { expectedSeq: 1, leaseToken: lease.token }), "LeaseLost");
      });

      it("refuses a non-positive TTL", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await expectCode(store.acquireLease(id, { holder: { id: "h" }, ttlMs: 0 }), "InvalidInput");
      });
    });

    describe("runnable tasks", () => {
      it("lists new tasks, parked tasks with pending work and tasks whose host died", async () => {
        const store = await fresh();
        const fresh1 = await newTask(store);
        const leased = await newTask(store);
        await store.acquireLease(leased, { holder: { id: "h" }, ttlMs: 5000 });
        const parked = await newTask(store);
        await store.append(parked, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
        const done = await newTask(store);
        await store.append(
          done,
          [make.legStarted("l1"), { type: "task_completed", v: 1, result: "ok" }, make.legEnded("l1")],
          {
            expectedSeq: 1,
          },
        );
        const cancelled = await newTask(store);
        await store.append(cancelled, [{ type: "task_cancelled", v: 1 }, make.input("parked", "wake")], {
          expectedSeq: 1,
        });
        const dead = await newTask(store);
        const deadLease = await store.acquireLease(dead, { holder: { id: "dead" }, ttlMs: 60 });
        await store.append(dead, [make.legStarted("l1")], { expectedSeq: 1, leaseToken: deadLease.token });

        const ids = async () => (await store.listRunnable()).map((record) => record.taskId).sort();
        expect(await ids()).toEqual([fresh1].sort());

        await store.append(parked, [make.input("parked", "steer")], { expectedSeq: 3 });
        await store.append(done, [make.input("parked", "wake")], { expectedSeq: 4 });
        await sleep(120);
        expect(await ids()).toEqual([fresh1, parked, done, dead].sort());
        const record = (await store.listRunnable()).find((r) => r.taskId === dead);
        expect(record?.summary.status).toBe("running");
        expect(await store.listRunnable({ limit: 2 })).toHaveLength(2);
      });

      it("lists a task whose durable timer is due, and not before", async () => {
        const store = await fresh();
        const soon = await newTask(store);
        const later = await newTask(store);
        for (const id of [soon, later]) {
          await store.append(id, [make.legStarted("l1"), make.legEnded("l1", "parked:wake")], { expectedSeq: 1 });
        }
        const timer = (wakeId: string, dueMs: number): TaskEvent => ({
          type: "wake_scheduled",
          v: 1,
          wakeId,
          due: new Date(dueMs).toISOString(),
          text: "wake up",
          source: "system",
        });
        await store.append(soon, [timer("w-soon", Date.now() + 150)], { expectedSeq: 3 });
        await store.append(later, [timer("w-later", Date.now() + 3_600_000)], { expectedSeq: 3 });
        expect(await store.listRunnable()).toEqual([]);
        await sleep(250);
        expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([soon]);
        // Firing the timer (its wake input) retires it; the input itself now makes the task runnable.
        await store.append(soon, [{ ...make.input("parked", "wake", "w-soon", "wake up") }], { expectedSeq: 4 });
        expect((await store.getTask(soon)).summary.timers).toEqual({});
        expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([soon]);
      });

      it("lists a task parked for approvals only once every approval is decided", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const digest = "a".repeat(64);
        const request = (callId: string): TaskEvent => ({
          type: "approval_requested",
          v: 1,
          legId: "l1",
          callId,
          name: "rm",
          inputJson: "{}",
          digest,
        });
        const decide = (callId: string): TaskEvent => ({
          type: "approval_decided",
          v: 1,
          callId,
          digest,
          decision: "approve",
          actor: { id: "alice", verified: true },
        });
        await store.append(
          id,
          [make.legStarted("l1"), request("c1"), request("c2"), make.legEnded("l1", "parked:approval")],
          { expectedSeq: 1 },
        );
        await store.append(id, [decide("c1")], { expectedSeq: 5 });
        expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([]);
        await store.append(id, [decide("c2")], { expectedSeq: 6 });
        expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([id]);
      });
    });

    describe("watch", () => {
      it("delivers stored then live events, each once, in order", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await store.append(id, notes("stored", 3), { expectedSeq: 1 });
        const controller = new AbortController();
        const received = collect(store.watch(id, { signal: controller.signal }), 10);
        await sleep(20);
        await store.append(id, notes("live", 2), { expectedSeq: 4 });
        await sleep(5);
        await store.append(id, notes("live2", 4), { expectedSeq: 6 });
        const events = await received;
        controller.abort();
        expect(seqs(events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      });

      it("includes events appended between a read and the watch that follows it", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const snapshot = await store.read(id);
        const lastSeen = snapshot.at(-1)?.seq ?? 0;
        await store.append(id, notes("gap", 3), { expectedSeq: 1 });
        const controller = new AbortController();
        const events = await collect(store.watch(id, { afterSeq: lastSeen, signal: controller.signal }), 3);
        controller.abort();
        expect(seqs(events)).toEqual([2, 3, 4]);
      });

      it("keeps up with concurrent writers and several watchers", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const controller = new AbortController();
        const watchers = [0, 1, 2].map(() => collect(store.watch(id, { afterSeq: 1, signal: controller.signal }), 60));
        let last = 1;
        for (let i = 0; i < 30; i++) {
          await store.append(id, notes(`n${i}`, 2), { expectedSeq: last });
          last += 2;
          if (i % 7 === 0) await sleep(1);
        }
        for (const events of await Promise.all(watchers)) {
          expect(seqs(events)).toEqual(Array.from({ length: 60 }, (_, i) => i + 2));
        }
        controller.abort();
      });

      it("ends cleanly when the caller aborts, even while waiting", async () => {
        const store = await fresh();
        const id = await newTask(store);
        const controller = new AbortController();
        const seen: number[] = [];
        const loop = (async () => {
          for await (const event of store.watch(id, { signal: controller.signal })) seen.push(event.seq);
          return "ended";
        })();
        await sleep(30);
        controller.abort();
        expect(await Promise.race([loop, sleep(2000).then(() => "hung")])).toBe("ended");
        expect(seen).toEqual([1]);
      });

      it("ends when the consumer breaks out of the loop", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await store.append(id, notes("x", 5), { expectedSeq: 1 });
        const seen: number[] = [];
        for await (const event of store.watch(id)) {
          seen.push(event.seq);
          if (event.seq === 3) break;
        }
        expect(seen).toEqual([1, 2, 3]);
      });
    });

    describe("snapshots", () => {
      it("round-trips the latest snapshot and ignores an older one", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await store.append(id, notes("x", 5), { expectedSeq: 1 });
        expect(await store.latestSnapshot(id)).toBeUndefined();
        const state = { status: "running", transcript: [{ role: "user", content: "héllo" }], n: 1.5, none: null };
        await store.putSnapshot({ taskId: id, seq: 4, v: 1, state });
        expect(await store.latestSnapshot(id)).toEqual({ taskId: id, seq: 4, v: 1, state });
        await store.putSnapshot({ taskId: id, seq: 6, v: 1, state: { later: true } });
        await store.putSnapshot({ taskId: id, seq: 5, v: 1, state: { older: true } });
        expect(await store.latestSnapshot(id)).toEqual({ taskId: id, seq: 6, v: 1, state: { later: true } });
      });

      it("refuses a snapshot beyond the end of the log or for an unknown task", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await expectCode(store.putSnapshot({ taskId: id, seq: 9, v: 1, state: {} }), "InvalidInput");
        await expectCode(store.putSnapshot({ taskId: "nope", seq: 1, v: 1, state: {} }), "TaskNotFound");
      });
    });

    describe("listing by principal", () => {
      it("pages one principal's tasks newest first, never another's", async () => {
        const store = await fresh();
        const mine: string[] = [];
        for (let i = 0; i < 7; i++) {
          mine.push(await newTask(store, "alice"));
          await newTask(store, i % 2 === 0 ? "bob" : "carol");
          await sleep(2);
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 5; page++) {
          const result = await store.listTasks(
            cursor === undefined ? { principal: "alice", limit: 3 } : { principal: "alice", limit: 3, cursor },
          );
          seen.push(...result.tasks.map((t) => t.taskId));
          for (const task of result.tasks) expect(task.principal).toBe("alice");
          if (result.nextCursor === undefined) break;
          cursor = result.nextCursor;
        }
        expect(seen).toEqual([...mine].reverse());
        expect((await store.listTasks({ principal: "nobody" })).tasks).toEqual([]);
        await expectCode(store.listTasks({ principal: "alice", cursor: "garbage!" }), "InvalidInput");
      });

      it("filters by status", async () => {
        const store = await fresh();
        const a = await newTask(store, "alice");
        await newTask(store, "alice");
        await store.append(a, [{ type: "task_completed", v: 1, result: "ok" }], { expectedSeq: 1 });
        const page = await store.listTasks({ principal: "alice", status: "completed" });
        expect(page.tasks.map((t) => t.taskId)).toEqual([a]);
        expect(page.tasks[0]?.summary.status).toBe("completed");
      });
    });

    describe("failure", () => {
      it("fails every call with StoreUnavailable once closed, and ends watches", async () => {
        // Through fresh(), so destroy() still cleans up after it (closing twice is allowed).
        const store = await fresh();
        const id = await newTask(store);
        const watching = (async () => {
          try {
            for await (const _ of store.watch(id, { afterSeq: 1 })) {
              // nothing more arrives
            }
            return "ended";
          } catch (error) {
            return isSemaError(error, "StoreUnavailable") ? "unavailable" : String(error);
          }
        })();
        await sleep(20);
        await store.close();
        await expectCode(store.read(id), "StoreUnavailable");
        await expectCode(store.append(id, [make.note()], { expectedSeq: 1 }), "StoreUnavailable");
        await expectCode(store.getTask(id), "StoreUnavailable");
        await expectCode(store.createTask({ created: make.created() }), "StoreUnavailable");
        await expectCode(store.listRunnable(), "StoreUnavailable");
        expect(await Promise.race([watching, sleep(3000).then(() => "hung")])).toMatch(/^(ended|unavailable)$/);
        await store.close();
      });

      it.runIf(options.openCorrupt !== undefined)("gives a typed error, not a crash, on corrupt storage", async () => {
        const open = options.openCorrupt;
        if (open === undefined) return;
        let store: Store | undefined;
        try {
          store = await open();
          await store.listRunnable();
          await store.createTask({ created: make.created() });
          throw new Error("a corrupt store answered as if healthy");
        } catch (error) {
          expect(isSemaError(error, "StoreUnavailable"), String(error)).toBe(true);
        } finally {
          await store?.close().catch(() => undefined);
        }
      });
    });
  });
}
