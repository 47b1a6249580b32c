import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { defineTool } from "../tools/define-tool.ts";
import { startTask } from "./start-task.ts";
import { wakeAt } from "./wake.ts";

// Only the clock is faked: the test moves it past the timer, instead of sleeping until it is due.
afterEach(() => vi.useRealTimers());
const lastUser = (model: ScriptedModel, call: number) => {
  const entry = model.requests[call]?.transcript.filter((e) => e.role === "user").at(-1);
  return entry?.role === "user" ? entry.content : undefined;
};

describe("durable timers (wakeAt)", () => {
  it("wake a finished task when due, not before", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "I will check back later." }, { text: "Checked: all good." }], {
      mode: "by-transcript",
    });
    const taskId = await startTask(store, { objective: "Watch the deploy" });
    await runLeg({ store, agent: { model } }, taskId);
    const due = Date.now() + 80;
    const { wakeId } = await wakeAt(store, taskId, { at: due, text: "Time to check the deploy." });
    expect(await store.listRunnable()).toEqual([]);
    expect(await runLeg({ store, agent: { model } }, taskId)).toMatchObject({
      status: "completed",
      result: "I will check back later.",
    });
    vi.setSystemTime(due - 1);
    expect(await store.listRunnable()).toEqual([]);
    vi.setSystemTime(due);
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    const outcome = await runLeg({ store, agent: { model } }, taskId);
    expect(outcome).toMatchObject({ status: "completed", result: "Checked: all good." });
    expect(lastUser(model, 1)).toBe("<system-reminder>\nTime to check the deploy.\n</system-reminder>");
    const fired = (await store.read(taskId)).filter((e) => e.type === "human_input" && e.inputId === wakeId);
    expect(fired.map((e) => e.type === "human_input" && e.delivery)).toEqual(["parked", "applied"]);
    expect(await store.listRunnable()).toEqual([]);
    expect((await store.getTask(taskId)).summary.timers).toEqual({});
  });

  it("an external timer is fenced with its sender; a timer due while the task runs arrives as a steer", async () => {
    const store = new MemoryStore();
    let taskId = "";
    const slow = defineTool({
      name: "slow",
      description: "slow",
      inputSchema: z.object({}),
      execute: async () => {
        await wakeAt(store, taskId, { at: Date.now(), text: "build finished: green", source: "external", from: "ci" });
        return "done";
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow", input: {} }] }, { text: "ok" }]);
    taskId = await startTask(store, { objective: "Wait for CI" });
    await runLeg({ store, agent: { model, tools: [slow] }, randomBytes: (n) => new Uint8Array(n) }, taskId);
    expect(lastUser(model, 1)).toBe(
      '<untrusted-0000000000000000 kind="external" from="ci">\n[from "ci"] (unverified)\nbuild finished: green\n</untrusted-0000000000000000>',
    );
  });

  it("refuses a time that is not one, and a cancelled task", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    await expect(wakeAt(store, taskId, { at: "tomorrow-ish", text: "x" })).rejects.toMatchObject({
      code: "InvalidInput",
    });
  });
});
