import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { StreamEvent } from "../../protocol/stream-event.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { runLeg } from "./run-leg.ts";
import { streamLeg } from "./stream-leg.ts";

describe("streamLeg", () => {
  it("streams deltas and stored events through streamLeg", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "Hello world", chunkSize: 4 }]);
    const taskId = await startTask(store, { objective: "Greet" });
    const seen: StreamEvent[] = [];
    const run = streamLeg({ store, agent: { model } }, taskId);
    for await (const event of run) seen.push(event);
    expect((await run.outcome).status).toBe("completed");
    const deltas = seen.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.delta : ""));
    expect(deltas).toEqual(["Hell", "o wo", "rld"]);
    // Every event the leg stored reaches the stream exactly once, in order, as stored.
    const log = await store.read(taskId);
    const legStart = log.find((e) => e.type === "leg_started")?.seq ?? 0;
    expect(seen.filter((e) => "seq" in e)).toEqual(log.filter((e) => e.seq >= legStart));
    expect(log.at(-2)?.type).toBe("task_completed");
  });

  it("a reader that breaks out interrupts the leg, which releases its lease", async () => {
    const store = new MemoryStore();
    // Runs until its signal aborts: only the leg being stopped ends it.
    const wait = defineTool({
      name: "wait",
      description: "waits to be stopped",
      inputSchema: z.object({}),
      execute: (_input, ctx) =>
        new Promise<string>((resolve) =>
          ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true }),
        ),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "wait", input: {} }] }, { text: "Done." }]);
    const taskId = await startTask(store, { objective: "Wait" });
    const run = streamLeg({ store, agent: { model, tools: [wait] } }, taskId);
    for await (const event of run) if (event.type === "tool_call_started") break;
    expect(await run.outcome).toMatchObject({ status: "parked", parkedReason: "interrupt" });
    expect((await store.getTask(taskId)).lease).toBeUndefined();
    // Another host takes the task at once: the lease was released, not left to expire.
    const next = await runLeg({ store, agent: { model, tools: [wait] }, holder: { id: "another-host" } }, taskId);
    expect(next.status).toBe("completed");
  });
});
