/**
 * The harness reads one clock, `HarnessOptions.clock` (issue 30): each test sets it far from the
 * wall clock (2031), so a reading of `Date.now` anywhere would show in what the log records.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import { startTask } from "../tasks/start-task.ts";
import { wakeAt } from "../tasks/wake.ts";
import { defineTool } from "../tools/define-tool.ts";
import { runLeg } from "./run-leg.ts";

const T = Date.parse("2031-01-01T00:00:00.000Z");

const refused: ScriptedTurn = { error: { message: "connection refused", code: "connection", isRetryable: true } };

const ofType = <K extends StoredEvent["type"]>(events: StoredEvent[], type: K) =>
  events.filter((event): event is Extract<StoredEvent, { type: K }> => event.type === type);

describe("HarnessOptions.clock", () => {
  it("times a model park's timer: due at the clock's now plus the backoff", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([refused]);
    const taskId = await startTask(store, { objective: "x" });
    const agent = { model, modelBackoff: { baseMs: 1000 } };
    const outcome = await runLeg({ store, agent, clock: () => T }, taskId);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "model" });
    const wakeId = `model-wait:${outcome.legId}`;
    expect((await store.getTask(taskId)).summary.timers).toEqual({ [wakeId]: T + 1000 });
    const [scheduled] = ofType(await store.read(taskId), "wake_scheduled");
    expect(scheduled).toMatchObject({ wakeId, due: "2031-01-01T00:00:01.000Z" });
  });

  it("says when a timer is due: a leg runs, and delivers it, only once the clock reaches it", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "later" }, { text: "checked" }]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model } }, taskId);
    const { wakeId } = await wakeAt(store, taskId, { at: T + 500, text: "check now" });

    const early = await runLeg({ store, agent: { model }, clock: () => T + 499 }, taskId);
    expect(early.legId).toBeUndefined();
    const due = await runLeg({ store, agent: { model }, clock: () => T + 500 }, taskId);
    expect(due).toMatchObject({ status: "completed", result: "checked" });
    const fired = ofType(await store.read(taskId), "human_input").filter((event) => event.inputId === wakeId);
    expect(fired.map((event) => event.delivery)).toEqual(["parked", "applied"]);
  });

  it("measures a tool call's duration", async () => {
    let now = T;
    const slow = defineTool({
      name: "slow",
      description: "takes 250 ms by the clock",
      inputSchema: z.object({}),
      execute: () => {
        now += 250;
        return "done";
      },
    });
    const store = new MemoryStore();
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow", input: {} }] }, { text: "ok" }]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model, tools: [slow] }, clock: () => now }, taskId);
    expect(ofType(await store.read(taskId), "tool_result").map((event) => event.durationMs)).toEqual([250]);
  });

  it("counts a budget's active time, with the store on the same clock", async () => {
    let now = T;
    const clock = () => now;
    const long = defineTool({
      name: "long",
      description: "takes a minute by the clock",
      inputSchema: z.object({}),
      execute: () => {
        now += 60_000;
        return "done";
      },
    });
    // The leg's start is the store's stamp (`at`), its end the harness's reading: one clock for both.
    const store = new MemoryStore({ now: clock });
    const model = new ScriptedModel([{ toolCalls: [{ name: "long", input: {} }] }, { text: "never asked" }]);
    const taskId = await startTask(store, { objective: "x" });
    const agent = { model, tools: [long], budget: { maxActiveMs: 30_000 } };
    // A lease that outlives the minute, by the store's reckoning too.
    const outcome = await runLeg({ store, agent, clock, leaseTtlMs: 120_000 }, taskId);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "budget" });
    expect(model.requests).toHaveLength(1);
    const [leg] = ofType(await store.read(taskId), "leg_started");
    expect(leg?.at).toBe(new Date(T).toISOString());
  });

  it("is checked like every other option", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const options = { store, agent: { model: new ScriptedModel([]) }, clock: 5 };
    // @ts-expect-error: a number is not a clock
    await expect(runLeg(options, taskId)).rejects.toMatchObject({
      code: "ConfigError",
      message: expect.stringContaining("clock must be a function (clock() returns milliseconds since the epoch)"),
    });
  });
});
