/**
 * Tasks naming an agent the pool does not have are left out of its claims for a while, not for
 * ever (issue 29, from reading the code): the `unrunnable` set never shrank and went whole into
 * every claim's `exclude`, so tasks naming a removed agent piled up until claims found nothing.
 * On fake timers, with the pool's clock injected.
 */
import { MemoryStore, startTask } from "@sema-agent/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAgentRegistry } from "./agent-registry.ts";
import { scriptedAgent } from "./test-support/scripted-agent.ts";
import { MAX_UNRUNNABLE, startWorkers, type WorkerPool } from "./worker-pool.ts";

let pool: WorkerPool | undefined;
beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  await pool?.stop({ deadlineMs: 1000 });
  pool = undefined;
  vi.useRealTimers();
});

/** A store that records the `exclude` of every claim. */
function recordingStore(): { store: MemoryStore; excludes: string[][] } {
  const store = new MemoryStore();
  const excludes: string[][] = [];
  const claim = store.claimRunnable.bind(store);
  store.claimRunnable = (options: Parameters<MemoryStore["claimRunnable"]>[0]) => {
    excludes.push([...(options.exclude ?? [])]);
    return claim(options);
  };
  return { store, excludes };
}

describe("a task naming an agent the pool does not have", () => {
  it("is left out of claims for unrunnableRetryMs, then looked at (and reported) again", async () => {
    const { store, excludes } = recordingStore();
    const orphan = await startTask(store, { objective: "orphan", agent: "gone" });
    let clock = 1_000_000;
    const reported: (string | undefined)[] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ default: scriptedAgent([{ text: "x" }]) }),
      pollMs: 10,
      now: () => clock,
      unrunnableRetryMs: 60_000,
      onError: (_error, taskId) => reported.push(taskId),
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(reported).toEqual([orphan]);
    expect(excludes.at(-1)).toEqual([orphan]);
    clock += 59_999;
    await vi.advanceTimersByTimeAsync(50);
    expect(excludes.at(-1)).toEqual([orphan]);
    expect(reported).toEqual([orphan]);
    clock += 1;
    await vi.advanceTimersByTimeAsync(50);
    // Forgotten: the next claim takes it again, finds the agent still missing, says so again.
    expect(reported).toEqual([orphan, orphan]);
    expect(excludes.some((exclude) => exclude.length === 0)).toBe(true);
    expect(excludes.at(-1)).toEqual([orphan]);
  });

  it("is one of at most MAX_UNRUNNABLE left out, however many there are", async () => {
    const { store, excludes } = recordingStore();
    const count = MAX_UNRUNNABLE + 200;
    for (let i = 0; i < count; i++) await startTask(store, { objective: `orphan ${i}`, agent: "gone" });
    let reported = 0;
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ default: scriptedAgent([{ text: "x" }]) }),
      concurrency: 100,
      pollMs: 10,
      onError: () => reported++,
    });
    await vi.advanceTimersByTimeAsync(200);
    expect(reported).toBeGreaterThanOrEqual(count);
    // What a claim leaves out: the legs running here (at most the concurrency) and the capped rest.
    expect(Math.max(...excludes.map((exclude) => exclude.length))).toBeLessThanOrEqual(MAX_UNRUNNABLE + 100);
  });
});
