/**
 * Fairness between principals, end to end through the worker pool: with every slot taken by a
 * principal that has 60 slow tasks queued, another principal's task starts at the very next slot
 * turnover — in memory, on SQLite, and on PostgreSQL with two pools (two "processes") sharing the
 * store. Deterministic: each leg's model waits on a gate the test opens; nothing sleeps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Agent, MemoryStore, type Store, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../postgres/src/test-server.fixture.ts";
import { createAgentRegistry } from "./agent-registry.ts";
import { startWorkers, type WorkerOptions, type WorkerPool } from "./worker-pool.ts";

/** Legs that wait at their model call until the test lets each one answer. */
class Gates {
  readonly started: string[] = [];
  readonly #open = new Map<string, () => void>();
  readonly #waiters: Array<{ count: number; resolve: () => void }> = [];
  readonly agent: Agent = {
    model: new ScriptedModel(
      [
        async (request) => {
          const name = /\b[AB]-\d+\b/.exec(JSON.stringify(request.transcript))?.[0] ?? "?";
          const gate = new Promise<void>((resolve) => this.#open.set(name, resolve));
          this.started.push(name);
          for (const waiter of this.#waiters.filter((w) => this.started.length >= w.count)) waiter.resolve();
          await gate;
          return { text: `done ${name}` };
        },
      ],
      { mode: "by-transcript", recordRequests: false },
    ),
  };

  /** Resolves once `count` legs have reached their model call. */
  startedCount(count: number): Promise<void> {
    if (this.started.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  release(name: string): void {
    this.#open.get(name)?.();
  }

  releaseAll(): void {
    for (const open of this.#open.values()) open();
  }
}

const pools: WorkerPool[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.stop({ deadlineMs: 2000 })));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * 60 tasks of A fill every slot of `slotsPerPool` × the stores' pools; B's task must be the next
 * one to start once one of A's legs ends.
 */
async function floodThenBystander(stores: Store[], slotsPerPool: number, extra: Partial<WorkerOptions> = {}) {
  const [first] = stores;
  if (first === undefined) throw new Error("no store");
  const gates = new Gates();
  for (let i = 0; i < 60; i++) await startTask(first, { objective: `task A-${i}`, principal: "A" });
  for (const store of stores) {
    // A long poll: claims happen when a leg ends or a task is created, not on a timer.
    pools.push(
      startWorkers({
        store,
        agents: createAgentRegistry({ default: gates.agent }),
        concurrency: slotsPerPool,
        pollMs: 60_000,
        onError: () => undefined,
        ...extra,
      }),
    );
  }
  const slots = slotsPerPool * stores.length;
  await gates.startedCount(slots);
  expect(gates.started.every((name) => name.startsWith("A-"))).toBe(true);
  await startTask(first, { objective: "task B-0", principal: "B" });
  for (const pool of pools) pool.notify("");
  gates.release(gates.started[0] ?? "");
  await gates.startedCount(slots + 1);
  const next = gates.started[slots];
  gates.releaseAll();
  return { next, gates };
}

describe("fair share between principals in the worker pool", () => {
  it("memory: B's task takes the first slot that frees, ahead of A's 56 older tasks", async () => {
    const { next } = await floodThenBystander([new MemoryStore()], 4);
    expect(next).toBe("B-0");
  });

  it("SQLite: the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-fair-"));
    const store = new SqliteStore({ path: join(dir, "sema.db") });
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const { next } = await floodThenBystander([store], 4);
    expect(next).toBe("B-0");
  });

  it("a per-principal cap keeps a slot free of A's flood for others", async () => {
    const store = new MemoryStore();
    const gates = new Gates();
    for (let i = 0; i < 10; i++) await startTask(store, { objective: `task A-${i}`, principal: "A" });
    pools.push(
      startWorkers({
        store,
        agents: createAgentRegistry({ default: gates.agent }),
        concurrency: 4,
        maxPerPrincipal: 3,
        pollMs: 60_000,
      }),
    );
    await gates.startedCount(3);
    await startTask(store, { objective: "task B-0", principal: "B" });
    pools[0]?.notify("");
    await gates.startedCount(4);
    expect(gates.started).toEqual(["A-0", "A-1", "A-2", "B-0"]);
    gates.releaseAll();
  });

  describe.skipIf(skip)("PostgreSQL", () => {
    it("two pools of two slots on one store: B's task takes the first slot that frees", async () => {
      const schema = freshSchema();
      const stores = [
        await PostgresStore.open({ connectionString: POSTGRES_URL, schema, pollMs: 50 }),
        await PostgresStore.open({ connectionString: POSTGRES_URL, schema, pollMs: 50 }),
      ];
      cleanups.push(async () => {
        for (const store of stores) await store.close();
        await dropSchema(schema);
      });
      const { next } = await floodThenBystander(stores, 2);
      expect(next).toBe("B-0");
    });
  });
});
