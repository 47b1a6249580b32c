/**
 * The pool's clock (`now`) is its legs' clock too (`HarnessOptions.clock`): a leg that parks for
 * a model that is down times its timer by it. On fake timers.
 */
import { MemoryStore, startTask } from "@sema-agent/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAgentRegistry } from "./agent-registry.ts";
import { scriptedAgent } from "./test-support/scripted-agent.ts";
import { startWorkers, type WorkerPool } from "./worker-pool.ts";

let pool: WorkerPool | undefined;
beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  await pool?.stop({ deadlineMs: 1000 });
  pool = undefined;
  vi.useRealTimers();
});

describe("startWorkers: now", () => {
  it("is the clock of the legs it runs", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const now = Date.parse("2031-01-01T00:00:00.000Z");
    const agent = {
      ...scriptedAgent([{ error: { message: "connection refused", code: "connection", isRetryable: true } }]),
      modelBackoff: { baseMs: 1000 },
    };
    pool = startWorkers({ store, agents: createAgentRegistry({ default: agent }), pollMs: 10, now: () => now });
    for (let waited = 0; (await store.getTask(taskId)).summary.status !== "parked"; waited += 10) {
      if (waited >= 5000) throw new Error("not parked after 5 s of fake time");
      await vi.advanceTimersByTimeAsync(10);
    }
    const { summary } = await store.getTask(taskId);
    expect(summary).toMatchObject({ parkedReason: "model" });
    expect(Object.values(summary.timers ?? {})).toEqual([now + 1000]);
  });
});
