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
import type { Store, StoreSizeLimits } from "../ports/store.ts";
import { isSemaError, type SemaErrorCode } from "../protocol/errors.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import { blobConformance } from "./store-conformance-blobs.ts";
import { claimsConformance } from "./store-conformance-claims.ts";
import { fairnessConformance } from "./store-conformance-fairness.ts";
import { filtersConformance } from "./store-conformance-filters.ts";
import { forksConformance } from "./store-conformance-forks.ts";
import { liveConformance } from "./store-conformance-live.ts";
import { overviewConformance } from "./store-conformance-overview.ts";
import { recordsConformance } from "./store-conformance-records.ts";
import { restoreConformance } from "./store-conformance-restore.ts";
import { retentionConformance } from "./store-conformance-retention.ts";
import { sizeLimitConformance } from "./store-conformance-size-limits.ts";
import { notes, seqs, sleep } from "./store-conformance-support.ts";
import { timeTravelConformance } from "./store-conformance-time-travel.ts";
import { usageConformance } from "./store-conformance-usage.ts";

/** The parts of vitest the suite uses (any runner with the same API works). */
export interface TestApi {
  describe: typeof Vitest.describe;
  it: typeof Vitest.it;
  expect: typeof Vitest.expect;
  afterEach: typeof Vitest.afterEach;
}

/**
 * How {@link runStoreConformance} gets its runner and stores: the test functions, a factory of a
 * fresh empty store per test, its cleanup, and optionally a store over corrupted storage.
 */
export interface StoreConformanceOptions {
  /** The test runner's functions, usually `import * as vitest from "vitest"`. */
  test: TestApi;
  /** A fresh, empty store for each test. */
  create(): Promise<Store>;
  /** Called after each test with what `create` returned (close it, remove its files). */
  destroy?(store: Store): Promise<void>;
  /** Open a store over deliberately corrupted storage; it or its first call must fail with a typed error. */
  openCorrupt?(): Promise<Store>;
  /** A fresh, empty store with these size limits (its constructor's `maxEventBytes`, `maxBlobBytes`). */
  createLimited?(limits: Required<StoreSizeLimits>): Promise<Store>;
}

/**
 * Register the shared {@link Store} conformance suite under `name`: every rule of the port (logs,
 * leases, claims, fairness, listings and their filters (forks too), watches, snapshots, blobs, records,
 * usage counters, typed errors), checked through the port alone with real time. Every adapter
 * must pass it.
 */
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
        // A task was created when its first events were written (a copy's createdAt is their time).
        expect(record.createdAt).toBe(stored[0]?.at);
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

    liveConformance({ describe, it, expect, fresh, newTask, expectCode });
    claimsConformance({ describe, it, expect, fresh, newTask, expectCode });
    overviewConformance({ describe, it, expect, fresh, newTask, expectCode });
    forksConformance({ describe, it, expect, fresh, newTask, expectCode });
    filtersConformance({ describe, it, expect, fresh, newTask, expectCode });
    fairnessConformance({ describe, it, expect, fresh, newTask, expectCode });
    blobConformance({ describe, it, expect, fresh, newTask, expectCode });
    recordsConformance({ describe, it, expect, fresh, newTask, expectCode });
    usageConformance({ describe, it, expect, fresh, newTask, expectCode });
    timeTravelConformance({ describe, it, expect, fresh, newTask, expectCode });
    retentionConformance({ describe, it, expect, fresh, newTask, expectCode });
    restoreConformance({ describe, it, expect, fresh, newTask, expectCode });
    const { createLimited } = options;
    if (createLimited !== undefined) {
      const freshLimited = async (limits: Required<StoreSizeLimits>) => {
        const store = await createLimited(limits);
        opened.push(store);
        return store;
      };
      sizeLimitConformance({ describe, it, expect, freshLimited, expectCode });
    }

    describe("inputs by id", () => {
      it("finds an input's first recorded stage by its id, in creation events too", async () => {
        const store = await fresh();
        const [created] = await store.createTask({
          created: make.created("alice"),
          more: [make.input("received", "objective", "objective-1", "Do it")],
        });
        const id = created?.taskId ?? "";
        await store.append(id, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 2 });
        await store.append(id, [make.input("parked", "steer", "in-a", "first")], { expectedSeq: 4 });
        await store.append(id, [make.input("applied", "steer", "in-a"), make.note("between")], { expectedSeq: 5 });
        const first = await store.findInput(id, "in-a");
        expect(first).toMatchObject({ taskId: id, seq: 5, type: "human_input", delivery: "parked", text: "first" });
        expect(first).toEqual((await store.read(id, { afterSeq: 4, limit: 1 }))[0]);
        expect(await store.findInput(id, "objective-1")).toMatchObject({ seq: 2, carrier: "objective" });
        expect(await store.findInput(id, "nope")).toBeUndefined();
        // Another task's input of the same id is not this task's.
        const other = await newTask(store);
        expect(await store.findInput(other, "in-a")).toBeUndefined();
        await expectCode(store.findInput("no-such-task", "in-a"), "TaskNotFound");
      });

      it("finds the first stage of an input a task is created with several stages of (a copied log)", async () => {
        const store = await fresh();
        const [created] = await store.createTask({
          created: make.created("alice"),
          more: [
            make.input("parked", "steer", "in-a", "first"),
            make.input("received", "steer", "in-b", "second"),
            make.input("applied", "steer", "in-a"),
            make.input("applied", "steer", "in-b"),
          ],
        });
        const id = created?.taskId ?? "";
        expect(await store.findInput(id, "in-a")).toMatchObject({ seq: 2, delivery: "parked", text: "first" });
        expect(await store.findInput(id, "in-b")).toMatchObject({ seq: 3, delivery: "received", text: "second" });
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

      it("writes the state's JSON text when the writer gives it, and returns the state without it", async () => {
        const store = await fresh();
        const id = await newTask(store);
        await store.append(id, notes("x", 3), { expectedSeq: 1 });
        const state = { transcript: [{ role: "assistant", text: "ünïcode \u2028" }], n: 2 };
        await store.putSnapshot({ taskId: id, seq: 3, v: 1, state, stateJson: JSON.stringify(state) });
        const read = await store.latestSnapshot(id);
        expect(read).toEqual({ taskId: id, seq: 3, v: 1, state });
        expect(read !== undefined && "stateJson" in read).toBe(false);
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
