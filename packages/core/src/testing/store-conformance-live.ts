/**
 * The live half of the store conformance suite: leases, runnable tasks (timers included) and the
 * watch tail. Called by `runStoreConformance` with its context.
 */
import type * as Vitest from "vitest";
import type { Store } from "../ports/store.ts";
import type { SemaErrorCode } from "../protocol/errors.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import { collect, eventually, letLapse, listedRunnable, notes, seqs, sleep } from "./store-conformance-support.ts";

export interface ConformanceContext {
  describe: typeof Vitest.describe;
  it: typeof Vitest.it;
  expect: typeof Vitest.expect;
  /** A fresh store, cleaned up after the test. */
  fresh(): Promise<Store>;
  newTask(store: Store, principal?: string): Promise<string>;
  expectCode(promise: Promise<unknown>, code: SemaErrorCode): Promise<unknown>;
}

export function liveConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, newTask, expectCode } = context;
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
      const first = await store.acquireLease(id, { holder: { id: "host-a" }, ttlMs: 10_000 });
      await store.append(id, [make.note("under lease")], { expectedSeq: 1, leaseToken: first.token });
      await letLapse(store, id, first.token);
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
      // The renewal is seen in the recorded lease; then the lease lapses (see letLapse).
      const lease = await store.acquireLease(id, { holder: { id: "host-a" }, ttlMs: 10_000 });
      const renewed = await store.renewLease(id, lease.token, 60_000);
      expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
      expect((await store.getTask(id)).lease?.expiresAt).toBe(renewed.expiresAt);
      await store.append(id, [make.note()], { expectedSeq: 1, leaseToken: lease.token });
      await letLapse(store, id, lease.token);
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
      const deadLease = await store.acquireLease(dead, { holder: { id: "dead" }, ttlMs: 10_000 });
      await store.append(dead, [make.legStarted("l1")], { expectedSeq: 1, leaseToken: deadLease.token });

      const ids = async () => (await store.listRunnable()).map((record) => record.taskId).sort();
      expect(await ids()).toEqual([fresh1].sort());

      await store.append(parked, [make.input("parked", "steer")], { expectedSeq: 3 });
      await store.append(done, [make.input("parked", "wake")], { expectedSeq: 4 });
      await letLapse(store, dead, deadLease.token);
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
      // Due far enough ahead to be still pending on a loaded machine; then waited for as listed.
      await store.append(soon, [timer("w-soon", Date.now() + 1000)], { expectedSeq: 3 });
      await store.append(later, [timer("w-later", Date.now() + 3_600_000)], { expectedSeq: 3 });
      expect(await store.listRunnable()).toEqual([]);
      await eventually("the due timer", () => listedRunnable(store, soon));
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
      // Abort once the watch has delivered what the log holds and so is waiting for more (a
      // fixed sleep was too short for a loaded machine's PostgreSQL).
      await eventually("the watch deliver the first event", async () => seen.length === 1);
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
}
