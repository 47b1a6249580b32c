/**
 * The claims part of the store conformance suite: `claimRunnable` takes leases of runnable tasks
 * only, people first, and workers claiming at the same time never share a task.
 */
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";
import { letLapse, sleep } from "./store-conformance-support.ts";

export function claimsConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh, newTask, expectCode } = context;
  describe("claims", () => {
    it("claims runnable tasks only, oldest activity first, and leases them to the claimer", async () => {
      const store = await fresh();
      const first = await newTask(store);
      const second = await newTask(store);
      const leased = await newTask(store);
      await store.acquireLease(leased, { holder: { id: "other" }, ttlMs: 5000 });
      const done = await newTask(store);
      await store.append(
        done,
        [make.legStarted("l1"), { type: "task_completed", v: 1, result: "ok" }, make.legEnded("l1")],
        { expectedSeq: 1 },
      );

      const claims = await store.claimRunnable({ holder: { id: "w1", host: "m1" }, ttlMs: 5000, limit: 10 });
      expect(claims.map((claim) => claim.task.taskId)).toEqual([first, second]);
      for (const claim of claims) {
        expect(claim.lease).toMatchObject({ taskId: claim.task.taskId, holder: { id: "w1", host: "m1" } });
        expect(claim.task.lease?.token).toBe(claim.lease.token);
        // The claim is a real lease: appends under it succeed, and nobody else can take it.
        await store.append(claim.task.taskId, [make.legStarted("l1")], {
          expectedSeq: claim.task.lastSeq,
          leaseToken: claim.lease.token,
        });
        await expectCode(store.acquireLease(claim.task.taskId, { holder: { id: "w2" }, ttlMs: 5000 }), "LeaseHeld");
      }
      expect(await store.claimRunnable({ holder: { id: "w2" }, ttlMs: 5000, limit: 10 })).toEqual([]);
      expect(await store.listRunnable()).toEqual([]);
    });

    it("lists the tasks whose live lease is held on a host, oldest activity first, with their holders", async () => {
      const store = await fresh();
      const first = await newTask(store);
      const second = await newTask(store);
      const elsewhere = await newTask(store);
      const expired = await newTask(store);
      const released = await newTask(store);
      await newTask(store);
      const holder = (id: string, host: string) => ({ id, host, pid: 4242, space: "boot/ns" });
      await store.acquireLease(first, { holder: holder("a", "m1"), ttlMs: 60_000 });
      await store.acquireLease(second, { holder: holder("b", "m1"), ttlMs: 60_000 });
      await store.acquireLease(elsewhere, { holder: holder("c", "m2"), ttlMs: 60_000 });
      await store.acquireLease(expired, { holder: holder("d", "m1"), ttlMs: 60 });
      const lease = await store.acquireLease(released, { holder: holder("e", "m1"), ttlMs: 60_000 });
      await store.releaseLease(released, lease.token);
      await sleep(120);
      const leased = await store.listLeasedOn("m1");
      expect(leased.map((record) => record.taskId)).toEqual([first, second]);
      expect(leased[0]?.lease?.holder).toEqual(holder("a", "m1"));
      expect((await store.listLeasedOn("m1", { limit: 1 })).map((record) => record.taskId)).toEqual([first]);
      expect(await store.listLeasedOn("m3")).toEqual([]);
      await expectCode(store.listLeasedOn("m1", { limit: 0 }), "InvalidInput");
    });

    it("lists and claims a task a person waits for ahead of routine ones that became runnable before it", async () => {
      const store = await fresh();
      // Routine work: tasks parked by a shutdown, runnable again for any worker.
      const routine: string[] = [];
      for (const n of [1, 2]) {
        const id = await newTask(store);
        const lease = await store.acquireLease(id, { holder: { id: "w0" }, ttlMs: 5000 });
        await store.append(id, [make.legStarted(`l${n}`), make.legEnded(`l${n}`, "parked:shutdown")], {
          expectedSeq: 1,
          leaseToken: lease.token,
        });
        await store.releaseLease(id, lease.token);
        routine.push(id);
      }
      // Then a person's: a new task (its first step), and a parked one given a person's input.
      const created = await newTask(store);
      const steered = await newTask(store);
      const lease = await store.acquireLease(steered, { holder: { id: "w0" }, ttlMs: 5000 });
      await store.append(steered, [make.legStarted("l3"), make.legEnded("l3", "parked:input")], {
        expectedSeq: 1,
        leaseToken: lease.token,
      });
      await store.releaseLease(steered, lease.token);
      expect((await store.listRunnable()).map((record) => record.taskId)).toEqual([created, ...routine]);
      await store.append(steered, [make.input("received", "steer", "i1")], { expectedSeq: 3 });
      expect((await store.listRunnable()).map((record) => record.taskId)).toEqual([created, steered, ...routine]);
      const first = await store.claimRunnable({ holder: { id: "w1" }, ttlMs: 5000, limit: 2 });
      expect(first.map((claim) => claim.task.taskId)).toEqual([created, steered]);
      const rest = await store.claimRunnable({ holder: { id: "w1" }, ttlMs: 5000, limit: 5 });
      expect(rest.map((claim) => claim.task.taskId)).toEqual(routine);
    });

    it("respects limit and exclude, and defaults to one task", async () => {
      const store = await fresh();
      const ids = [await newTask(store), await newTask(store), await newTask(store)];
      const one = await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000 });
      expect(one.map((claim) => claim.task.taskId)).toEqual([ids[0]]);
      const rest = await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000, limit: 5, exclude: [ids[1] ?? ""] });
      expect(rest.map((claim) => claim.task.taskId)).toEqual([ids[2]]);
      await expectCode(store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000, limit: 0 }), "InvalidInput");
      await expectCode(store.claimRunnable({ holder: { id: "w" }, ttlMs: 0 }), "InvalidInput");
    });

    it("claims a task whose holder's lease expired mid-leg", async () => {
      const store = await fresh();
      const id = await newTask(store);
      const dead = await store.acquireLease(id, { holder: { id: "dead" }, ttlMs: 10_000 });
      await store.append(id, [make.legStarted("l1")], { expectedSeq: 1, leaseToken: dead.token });
      expect(await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000 })).toEqual([]);
      await letLapse(store, id, dead.token);
      const [claim] = await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000 });
      expect(claim?.task.taskId).toBe(id);
      expect(claim?.task.summary.status).toBe("running");
      await expectCode(store.renewLease(id, dead.token, 5000), "LeaseLost");
    });

    it("claims a child that ended (cancelled too) until its report to the parent is recorded", async () => {
      const store = await fresh();
      const parent = await newTask(store);
      await store.append(parent, [make.legStarted("l1"), make.legEnded("l1", "parked:child")], { expectedSeq: 1 });
      const [created] = await store.createTask({ created: { ...make.created(), parentTaskId: parent } });
      const child = created?.taskId ?? "";
      await store.append(child, [make.legStarted("l1"), make.legEnded("l1", "parked:approval")], { expectedSeq: 1 });
      await store.append(child, [{ type: "task_cancelled", v: 1 }], { expectedSeq: 3 });
      const [claim] = await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000, limit: 10 });
      expect(claim?.task).toMatchObject({ taskId: child, summary: { status: "cancelled", parentReport: "due" } });
      await store.append(child, [{ type: "parent_notified", v: 1 }], {
        expectedSeq: 4,
        leaseToken: claim?.lease.token ?? "",
      });
      await store.releaseLease(child, claim?.lease.token ?? "");
      expect((await store.getTask(child)).summary.runnable).toBe(false);
      expect(await store.claimRunnable({ holder: { id: "w" }, ttlMs: 5000, limit: 10 })).toEqual([]);
    });

    it("never gives one task to two workers claiming at the same time", async () => {
      const store = await fresh();
      const ids = new Set<string>();
      for (let i = 0; i < 24; i++) ids.add(await newTask(store));
      const workers = ["w1", "w2", "w3"];
      const claimed: string[] = [];
      // Each worker claims in small batches until nothing is left.
      await Promise.all(
        workers.map(async (worker) => {
          for (;;) {
            const claims = await store.claimRunnable({ holder: { id: worker }, ttlMs: 5000, limit: 3 });
            if (claims.length === 0) return;
            claimed.push(...claims.map((claim) => claim.task.taskId));
          }
        }),
      );
      expect(claimed.length).toBe(ids.size);
      expect(new Set(claimed)).toEqual(ids);
    });
  });
}
