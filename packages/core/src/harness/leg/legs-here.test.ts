// A second leg of a task that runs in this process is refused as one from another process is:
// LeaseHeld, and the first leg keeps its lease and finishes.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { runLeg } from "./run-leg.ts";

describe("a second leg in the same process", () => {
  it("gets LeaseHeld, and the first leg is untouched", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Work" });
    let release = () => {};
    let running = () => {};
    const started = new Promise<void>((resolve) => (running = resolve));
    const gate = defineTool({
      name: "gate",
      description: "waits for the test",
      inputSchema: z.object({}),
      execute: () =>
        new Promise<string>((resolve) => {
          release = () => resolve("opened");
          running();
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "gate", input: {} }] }, { text: "done" }]);
    const first = runLeg({ store, agent: { model, tools: [gate] } }, taskId);
    await started;
    const leaseBefore = (await store.getTask(taskId)).lease;

    const second = await runLeg({ store, agent: { model: new ScriptedModel([]) } }, taskId).catch((e: unknown) => e);
    expect(second).toMatchObject({ code: "LeaseHeld", details: { taskId } });
    expect((await store.getTask(taskId)).lease?.token).toBe(leaseBefore?.token);

    release();
    expect(await first).toMatchObject({ status: "completed", result: "done" });
    const events = await store.read(taskId);
    expect(events.filter((e) => e.type === "leg_started")).toHaveLength(1);
    // Once the first leg ended, this process may run the task again.
    expect(await runLeg({ store, agent: { model: new ScriptedModel([]) } }, taskId)).toMatchObject({
      status: "completed",
    });
  });

  it("two legs started in the same tick: exactly one runs", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Work" });
    const model = new ScriptedModel([{ text: "done" }, { text: "again" }]);
    const results = await Promise.allSettled([
      runLeg({ store, agent: { model } }, taskId),
      runLeg({ store, agent: { model } }, taskId),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected");
    expect(rejected?.status === "rejected" ? rejected.reason : undefined).toMatchObject({ code: "LeaseHeld" });
    expect((await store.read(taskId)).filter((e) => e.type === "leg_started")).toHaveLength(1);
  });
});
