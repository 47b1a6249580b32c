// A running leg's own event over the store's maxEventBytes: a tool's result is recorded as an
// error result (ContentTooLarge) and the task goes on; any other (the model's answer) fails the
// task with ContentTooLarge recorded and ends the leg. The host never sees a throw, nothing is lost.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { runLeg } from "./run-leg.ts";

const LIMIT = 8192;
const huge = defineTool({
  name: "huge",
  description: "returns far more than the store takes in one event",
  inputSchema: z.object({}),
  execute: async () => ({ rows: "x".repeat(4 * LIMIT) }),
});

describe("a leg's own over-size event", () => {
  it("records an over-size tool result as a ContentTooLarge error, and the task goes on", async () => {
    const store = new MemoryStore({ maxEventBytes: LIMIT });
    const taskId = await startTask(store, { objective: "Read everything" });
    const model = new ScriptedModel([{ toolCalls: [{ name: "huge", input: {} }] }, { text: "It was too big." }]);
    const outcome = await runLeg({ store, agent: { model, tools: [huge] } }, taskId);
    expect(outcome.status).toBe("completed");
    const events = await store.read(taskId);
    const result = events.find((event) => event.type === "tool_result");
    expect(result).toMatchObject({
      type: "tool_result",
      name: "huge",
      status: "error",
      error: { name: "ContentTooLarge" },
    });
    expect(result?.type === "tool_result" && result.content).toContain("ContentTooLarge");
    // The model was told: its next request carried the error result.
    expect(JSON.stringify(model.requests.at(-1))).toContain("ContentTooLarge");
    for (const event of events) expect(JSON.stringify(event).length).toBeLessThanOrEqual(LIMIT);
    expect(fold(events).summary.status).toBe("completed");
    expect((await store.getTask(taskId)).summary.status).toBe("completed");
  });

  it("fails the task with ContentTooLarge recorded when the model's answer is over the limit", async () => {
    const store = new MemoryStore({ maxEventBytes: LIMIT });
    const taskId = await startTask(store, { objective: "Write a long answer" });
    const model = new ScriptedModel([{ text: "y".repeat(4 * LIMIT) }]);
    const outcome = await runLeg({ store, agent: { model } }, taskId);
    expect(outcome.status).toBe("failed");
    const events = await store.read(taskId);
    expect(events.at(-2)).toMatchObject({ type: "task_failed", error: { code: "ContentTooLarge" } });
    expect(events.at(-1)).toMatchObject({ type: "leg_ended", reason: "failed" });
    const task = await store.getTask(taskId);
    expect(task.summary.status).toBe("failed");
    // The lease is released: the task is not held by a leg that is gone.
    expect(task.lease).toBeUndefined();
  });
});
