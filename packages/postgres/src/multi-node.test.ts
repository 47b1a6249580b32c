/**
 * Two stores on one database, each with its own pool, standing for two nodes: migrations, racing
 * appends and live delivery must hold across connections, not only inside one process's store.
 */
import { isSemaError, type StoredEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "./test-server.fixture.ts";

const notes = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => make.note(`${prefix}-${i}`));

describe.skipIf(skip)("PostgresStore across connections", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** Two nodes opening one fresh schema at the same moment (the advisory lock serializes them). */
  async function twoNodes(pollMs = 250): Promise<[PostgresStore, PostgresStore]> {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const stores = await Promise.all([
      PostgresStore.open({ connectionString: POSTGRES_URL, schema, pollMs }),
      PostgresStore.open({ connectionString: POSTGRES_URL, schema, pollMs }),
    ]);
    for (const store of stores) cleanup.push(() => store.close());
    return stores;
  }

  it("lets one of two racing nodes win an append, without interleaving", async () => {
    const [a, b] = await twoNodes();
    const [created] = await a.createTask({ created: make.created("alice") });
    const id = created?.taskId ?? "";
    for (let round = 0; round < 10; round++) {
      const expectedSeq = (await a.getTask(id)).lastSeq;
      const results = await Promise.allSettled([
        a.append(id, notes(`A${round}`, 5), { expectedSeq }),
        b.append(id, notes(`B${round}`, 5), { expectedSeq }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.find((r) => r.status === "rejected");
      expect(isSemaError(rejected?.reason, "SeqConflict"), String(rejected?.reason)).toBe(true);
    }
    const events = await b.read(id);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    const texts = events.slice(1).map((e) => (e.type === "engine_note" ? e.text : ""));
    for (let i = 0; i < texts.length; i += 5) {
      const writer = texts[i]?.split("-")[0];
      expect(texts.slice(i, i + 5)).toEqual(Array.from({ length: 5 }, (_, j) => `${writer}-${j}`));
    }
  });

  it("wakes a watch on one node by NOTIFY when another node appends", async () => {
    // A poll far longer than the test: only the notification can deliver in time.
    const [watcher, writer] = await twoNodes(60_000);
    const [created] = await writer.createTask({ created: make.created("alice") });
    const id = created?.taskId ?? "";
    const controller = new AbortController();
    const received: StoredEvent[] = [];
    const done = (async () => {
      for await (const event of watcher.watch(id, { afterSeq: 1, signal: controller.signal })) {
        received.push(event);
        if (received.length === 4) return;
      }
    })();
    await watcher.listening();
    await writer.append(id, notes("x", 1), { expectedSeq: 1 });
    // Once the watch has given seq 2 it has read the log so far and waits: seqs 3-5 can only
    // reach it by NOTIFY (the first append may have come by its first read).
    const deadline = Date.now() + 3000;
    while (received.length < 1) {
      if (Date.now() > deadline) throw new Error("the first append never reached the watch");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await writer.append(id, notes("y", 3), { expectedSeq: 2 });
    const outcome = await Promise.race([
      done.then(() => "delivered"),
      new Promise((resolve) => setTimeout(resolve, 3000, "timeout")),
    ]);
    controller.abort();
    expect(outcome).toBe("delivered");
    expect(received.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
  });

  it("splits runnable tasks among workers on three nodes claiming at once, none twice", async () => {
    const [a, b] = await twoNodes();
    const c = await PostgresStore.open({ connectionString: POSTGRES_URL, schema: a.schema });
    cleanup.push(() => c.close());
    const ids = new Set<string>();
    for (let i = 0; i < 90; i++) {
      const [created] = await a.createTask({ created: make.created("alice") });
      ids.add(created?.taskId ?? "");
    }
    const claimed = new Map<string, string>();
    // Each node goes on past its first claim only once all three have made one, so on a busy
    // machine one node cannot take every task before the others' first query runs: the share
    // each gets is decided by the claims, not by the scheduler.
    let firstClaims = 0;
    let allClaimed: () => void = () => undefined;
    const everyNodeClaimed = new Promise<void>((resolve) => {
      allClaimed = resolve;
    });
    const perNode = await Promise.all(
      [a, b, c].map(async (store, node) => {
        let count = 0;
        for (let round = 0; ; round++) {
          const claims = await store.claimRunnable({ holder: { id: `node-${node}` }, ttlMs: 30_000, limit: 4 });
          if (round === 0 && ++firstClaims === 3) allClaimed();
          if (round === 0) await everyNodeClaimed;
          if (claims.length === 0) return count;
          for (const { task } of claims) {
            expect(claimed.get(task.taskId), `claimed twice: ${task.taskId}`).toBeUndefined();
            claimed.set(task.taskId, `node-${node}`);
          }
          count += claims.length;
        }
      }),
    );
    expect(new Set(claimed.keys())).toEqual(ids);
    // Claims made at once each get tasks of their own (SKIP LOCKED): every node has a share.
    expect(perNode.filter((n) => n > 0).length).toBe(3);
  });

  it("tells subscribers on another node when a task becomes runnable, and not while it is leased", async () => {
    const [worker, api] = await twoNodes(60_000);
    const seen: string[] = [];
    const unsubscribe = worker.onRunnable((taskId) => seen.push(taskId));
    await worker.listening();
    const waitFor = async (taskId: string) => {
      const end = Date.now() + 3_000;
      while (!seen.includes(taskId)) {
        if (Date.now() > end) throw new Error(`no runnable notice for ${taskId}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      seen.length = 0;
    };
    const [created] = await api.createTask({ created: make.created("alice") });
    const id = created?.taskId ?? "";
    await waitFor(id);

    // Leased and running: appends under the lease say nothing to workers.
    const lease = await worker.acquireLease(id, { holder: { id: "w" }, ttlMs: 30_000 });
    await worker.append(id, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], {
      expectedSeq: 1,
      leaseToken: lease.token,
    });
    // A steer that arrives as the leg ends is pending when the lease is released.
    await api.append(id, [make.input("parked", "steer")], { expectedSeq: 3 });
    // A marker task created after those appends: notifications arrive in commit order, so once
    // its notice is here, any notice the leased appends sent would be too.
    const [marker] = await api.createTask({ created: make.created("alice") });
    const markerId = marker?.taskId ?? "";
    const end = Date.now() + 3_000;
    while (!seen.includes(markerId)) {
      if (Date.now() > end) throw new Error("no runnable notice for the marker task");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen).toEqual([markerId]);
    seen.length = 0;
    await worker.releaseLease(id, lease.token);
    await waitFor(id);

    // Parked with nothing to do, then given work by another node: runnable again.
    const [other] = await api.createTask({ created: make.created("alice") });
    const parked = other?.taskId ?? "";
    await waitFor(parked);
    await api.append(parked, [make.legStarted("l1"), make.legEnded("l1", "parked:input")], { expectedSeq: 1 });
    await api.append(parked, [make.input("parked", "steer")], { expectedSeq: 3 });
    await waitFor(parked);
    unsubscribe();
  });

  it("reports an unreachable server as StoreUnavailable", async () => {
    const error = await PostgresStore.open({ connectionString: "postgres://postgres@127.0.0.1:1/test" }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isSemaError(error, "StoreUnavailable"), String(error)).toBe(true);
  });
});
