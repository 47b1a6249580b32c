/**
 * `serve({ emit })`: the host's own sink (a tracer's) sees every event the in-process workers'
 * legs emit, stored and ephemeral, beside the API's hub; a sink that throws fails no leg.
 * `serve({ harness })`: the workers' legs get its `childEmit` and `traceparentOf`.
 */
import { type Agent, defineTool, MemoryStore, type StreamEvent, type ToolContext } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryTokenStore } from "./ingress/memory-token-store.ts";
import { serve } from "./node/serve.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { scriptedAgent } from "./test-support/api-fixture.ts";

describe("serve's emit", () => {
  it("sees the workers' events, and a throw in it fails no leg", async () => {
    const store = new MemoryStore();
    const seen: StreamEvent[] = [];
    const serving = await serve({
      protocols: allProtocols(),
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

  it("hands harness.childEmit the events of children run in a leg, and harness.traceparentOf to their calls", async () => {
    const store = new MemoryStore();
    const traceparents: Array<string | undefined> = [];
    const probe = defineTool({
      name: "probe",
      description: "records the call's traceparent",
      inputSchema: z.object({}),
      execute: (_input, ctx: ToolContext) => {
        traceparents.push(ctx.traceparent);
        return "probed";
      },
    });
    const helper: Agent = {
      model: new ScriptedModel([{ toolCalls: [{ name: "probe", input: {} }] }, { text: "helped" }], {
        mode: "by-transcript",
      }),
      tools: [probe],
    };
    const lead: Agent = {
      model: new ScriptedModel(
        [{ toolCalls: [{ name: "delegate", input: { objective: "help", agent: "helper" } }] }, { text: "led" }],
        { mode: "by-transcript" },
      ),
      delegation: { agents: { helper } },
    };
    const own: StreamEvent[] = [];
    const children: StreamEvent[] = [];
    const unused: StreamEvent[] = [];
    const traceparent = `00-${"2".repeat(32)}-${"3".repeat(16)}-01`;
    const serving = await serve({
      protocols: allProtocols(),
      store,
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry({ default: lead }),
      port: 0,
      workers: { pollMs: 20 },
      emit: (event) => own.push(event),
      // A tracer's whole harness: its emit is not used (the top-level emit is the legs' sink).
      harness: {
        emit: (event) => unused.push(event),
        childEmit: (event) => children.push(event),
        traceparentOf: () => traceparent,
      },
    });
    try {
      const response = await fetch(`${serving.url}/v1/tasks`, {
        method: "POST",
        headers: { authorization: `Bearer ${serving.firstToken?.token}`, "content-type": "application/json" },
        body: JSON.stringify({ objective: "Lead" }),
      });
      const { taskId } = (await response.json()) as { taskId: string };
      await expect
        .poll(async () => (await store.getTask(taskId)).summary.status, { timeout: 10_000, interval: 20 })
        .toBe("completed");
      const childId = (await store.read(taskId)).find((event) => event.type === "child_task")?.childTaskId;
      expect(childId).toBeDefined();
      await expect
        .poll(() => children.some((event) => event.type === "task_completed"), { timeout: 10_000 })
        .toBe(true);
      expect(new Set(children.map((event) => event.taskId))).toEqual(new Set([childId]));
      expect(own.some((event) => event.taskId === childId)).toBe(false);
      expect(traceparents).toEqual([traceparent]);
      expect(own.map((event) => event.type)).toContain("task_completed");
      expect(unused).toEqual([]);
    } finally {
      await serving.close();
    }
  });
});
