/**
 * `serve({ emit })`: the host's own sink (a tracer's) sees every event the in-process workers'
 * legs emit, stored and ephemeral, beside the API's hub; a sink that throws fails no leg.
 */
import { MemoryStore, type StreamEvent } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { MemoryTokenStore } from "./ingress/memory-token-store.ts";
import { serve } from "./serve.ts";
import { scriptedAgent } from "./test-support/api-fixture.ts";

describe("serve's emit", () => {
  it("sees the workers' events, and a throw in it fails no leg", async () => {
    const store = new MemoryStore();
    const seen: StreamEvent[] = [];
    const serving = await serve({
      store,
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry({ default: scriptedAgent([{ text: "Done here.", chunkSize: 2 }]) }),
      port: 0,
      workers: { pollMs: 20 },
      emit: (event) => {
        seen.push(event);
        throw new Error("an observer's bug");
      },
    });
    try {
      const response = await fetch(`${serving.url}/v1/tasks`, {
        method: "POST",
        headers: { authorization: `Bearer ${serving.firstToken?.token}`, "content-type": "application/json" },
        body: JSON.stringify({ objective: "Say done" }),
      });
      const { taskId } = (await response.json()) as { taskId: string };
      await expect
        .poll(async () => (await store.getTask(taskId)).summary.status, { timeout: 10_000, interval: 20 })
        .toBe("completed");
      await expect.poll(() => seen.some((event) => event.type === "leg_ended"), { timeout: 10_000 }).toBe(true);
      const types = new Set(seen.map((event) => event.type));
      for (const type of ["leg_started", "text_delta", "model_turn", "task_completed"]) expect(types).toContain(type);
    } finally {
      await serving.close();
    }
  });
});
