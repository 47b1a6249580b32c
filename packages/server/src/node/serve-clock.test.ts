/**
 * `serve({ clock })` is one clock for the process: the quota windows, the rate limits and the
 * in-process workers' legs (their `HarnessOptions.clock`). A leg that parks for a model that is
 * down times its timer by it.
 */
import { MemoryStore, startTask } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { scriptedAgent } from "../../../worker/src/test-support/scripted-agent.ts";
import { createAgentRegistry } from "../index.ts";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { serve } from "./serve.ts";

describe("serve: clock", () => {
  it("is the clock of the legs its workers run", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const now = Date.parse("2031-01-01T00:00:00.000Z");
    const agent = {
      ...scriptedAgent([{ error: { message: "connection refused", code: "connection", isRetryable: true } }]),
      modelBackoff: { baseMs: 1000 },
    };
    const serving = await serve({
      store,
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry({ default: agent }),
      port: 0,
      workers: { pollMs: 10 },
      clock: () => now,
    });
    try {
      await expect.poll(async () => (await store.getTask(taskId)).summary.status, { timeout: 10_000 }).toBe("parked");
      const { summary } = await store.getTask(taskId);
      expect(summary).toMatchObject({ parkedReason: "model" });
      expect(Object.values(summary.timers ?? {})).toEqual([now + 1000]);
    } finally {
      await serving.close({ deadlineMs: 1000 });
    }
  });
});
