import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { requestResume } from "../harness/tasks/control.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { diffTasks, formatTaskDiff } from "./diff-tasks.ts";
import { forkTask } from "./fork-task.ts";
import { pinned, recordTrip } from "./recorded-task.fixture.ts";

describe("diffTasks", () => {
  it("sets a task and its fork side by side from their common prefix, the first divergence marked", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const events = await store.read(taskId);
    const weather = events.find((e) => e.type === "tool_result" && e.name === "weather");
    if (weather?.type !== "tool_result") throw new Error("no weather result");
    const fork = await forkTask(store, taskId, {
      edits: { toolResult: { callId: weather.callId, content: "Storms all week" } },
    });
    await requestResume(store, fork.taskId);
    const model = new ScriptedModel([{ text: "Postpone the trip." }], { id: "openai:gpt-5-mini" });
    await runLeg({ store, agent: { ...agent, model }, ...pinned() }, fork.taskId);

    const diff = await diffTasks(store, taskId, fork.taskId, {
      prices: { "gpt-5-mini": { input: 0.25, output: 2 }, inline: { input: 1, output: 1 } },
    });
    expect(diff.identical).toBe(false);
    expect(diff.common).toBe(3); // the objective, the first turn, the steer that came while the tool ran
    expect(diff.firstDivergence?.a).toMatchObject({ kind: "tool", text: expect.stringContaining("Sunny in Lisbon") });
    expect(diff.firstDivergence?.b).toMatchObject({ kind: "tool", text: expect.stringContaining("Storms all week") });
    expect(diff.a.usage.inputTokens).toBeGreaterThan(0);
    expect(diff.b.costUsd).toBeGreaterThan(0);
    const text = formatTaskDiff(diff);
    expect(text).toContain("3 steps in common");
    expect(text).toMatch(/> A tool +weather\({"city":"Lisbon"}\) ok: Sunny in Lisbon/);
    expect(text).toMatch(/> B tool +weather\({"city":"Lisbon"}\) ok: Storms all week/);
    expect(text).toContain("B model    Postpone the trip.");
  });

  it("finds a task identical to itself and to its untouched fork", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const fork = await forkTask(store, taskId);
    expect((await diffTasks(store, taskId, fork.taskId)).identical).toBe(true);
    expect(formatTaskDiff(await diffTasks(store, taskId, taskId))).toContain("identical");
  });

  it("is refused when either task is another principal's", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    await expect(diffTasks(store, taskId, taskId, { principal: "mallory" })).rejects.toMatchObject({
      code: "TaskNotFound",
    });
  });
});
