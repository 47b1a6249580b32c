import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { isModelWait } from "../../core/model-wait.ts";
import type { Model, ModelFailure } from "../../ports/model.ts";
import type { StoredEvent, TaskEvent } from "../../protocol/task-event.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { cancel } from "../tasks/control.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { modelParkDelayMs } from "./model-unavailable.ts";
import { withRetry } from "./retry.ts";

// Only the clock is faked: a test moves it to the timer's due time instead of waiting for it.
afterEach(() => vi.useRealTimers());
const T0 = Date.parse("2026-12-01T12:00:00.000Z");

const refused: ScriptedTurn = {
  error: { message: "connect ECONNREFUSED 127.0.0.1:59999", code: "connection", isRetryable: true },
};
const failure = (extra: Partial<ModelFailure> = {}): ModelFailure => ({
  code: "connection",
  message: "down",
  isRetryable: true,
  ...extra,
});

const notes = (events: readonly StoredEvent[]) =>
  events.filter((e) => e.type === "engine_note" && e.kind === "model_unavailable");

describe("modelParkDelayMs", () => {
  it("doubles with each park in a row, is capped, and honours a longer retry-after", () => {
    const backoff = { baseMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 5, 60].map((n) => modelParkDelayMs(n, failure(), backoff))).toEqual([
      1000, 2000, 4000, 5000, 5000, 5000,
    ]);
    expect(modelParkDelayMs(1, failure({ retryAfterMs: 3500 }), backoff)).toBe(3500);
    expect(modelParkDelayMs(1, failure({ retryAfterMs: 60_000 }), backoff)).toBe(5000);
    expect(modelParkDelayMs(1, failure(), undefined)).toBe(10_000);
    expect(modelParkDelayMs(20, failure(), undefined)).toBe(600_000);
  });
});

describe("a model that is down parks the task (parked:model)", () => {
  it("parks after the retries with a durable timer, and the next leg asks the same turn again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const store = new MemoryStore();
    const scripted = new ScriptedModel([refused, refused, { text: "back up" }]);
    // One retry inside the turn, then the failure outlasts the policy.
    const model = withRetry(scripted, { maxRetries: 1, sleep: async () => {}, random: () => 0 });
    const agent: Agent = { model, modelBackoff: { baseMs: 1000, maxMs: 8000 } };
    const taskId = await startTask(store, { objective: "x" });

    const parked = await runLeg({ store, agent }, taskId);
    expect(parked).toMatchObject({ status: "parked", parkedReason: "model" });
    const { summary } = await store.getTask(taskId);
    expect(summary).toMatchObject({ status: "parked", parkedReason: "model", parkedDetail: "connection" });
    const wakeId = `model-wait:${parked.legId}`;
    expect(summary.timers).toEqual({ [wakeId]: T0 + 1000 });
    const [note] = notes(await store.read(taskId));
    expect(note).toMatchObject({
      kind: "model_unavailable",
      text: expect.stringContaining("connect ECONNREFUSED 127.0.0.1:59999 (connection)"),
      data: { code: "connection", parks: 1, delayMs: 1000, due: "2026-12-01T12:00:01.000Z", wakeId },
    });

    // Runnable when due, not before: what a worker's claim asks.
    vi.setSystemTime(T0 + 999);
    expect(await store.listRunnable()).toEqual([]);
    vi.setSystemTime(T0 + 1000);
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);

    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ status: "completed", result: "back up" });
    // The same request, byte for byte: the timer delivered no message.
    expect(scripted.requests[2]).toEqual(scripted.requests[0]);
    const events = await store.read(taskId);
    expect(events.filter((e) => e.type === "user_message")).toHaveLength(1);
    expect(events.filter((e) => e.type === "human_input" && e.inputId === wakeId)).toMatchObject([
      { delivery: "dropped", carrier: "wake" },
    ]);
    expect((await store.getTask(taskId)).summary.timers).toEqual({});
    expect(await store.listRunnable()).toEqual([]);
    scripted.assertConsumed();
  });

  it("records the park, its note and its timer in one append, so a crash cannot lose the wake", async () => {
    const store = new MemoryStore();
    const appends: TaskEvent[][] = [];
    const append = store.append.bind(store);
    store.append = (taskId, events, options) => {
      appends.push([...events]);
      return append(taskId, events, options);
    };
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model: new ScriptedModel([refused]) } }, taskId);
    const last = appends.at(-1) ?? [];
    expect(last.map((e) => (e.type === "leg_ended" ? e.reason : e.type))).toEqual([
      "engine_note",
      "wake_scheduled",
      "parked:model",
    ]);
  });

  it("grows the backoff with each park in a row, caps it, and starts over after a model turn", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const store = new MemoryStore();
    const echo = defineTool({
      name: "echo",
      description: "echo",
      inputSchema: z.object({}),
      execute: async () => "echoed",
    });
    const model = new ScriptedModel([
      refused,
      refused,
      refused,
      refused,
      { toolCalls: [{ name: "echo", input: {} }] },
      { error: { message: "overloaded", code: "server_error", isRetryable: true, status: 529 } },
      { text: "done" },
    ]);
    const agent: Agent = { model, tools: [echo], modelBackoff: { baseMs: 1000, maxMs: 5000 } };
    const taskId = await startTask(store, { objective: "x" });
    const outcomes = [];
    for (let leg = 0; leg < 6; leg++) outcomes.push((await runLeg({ store, agent }, taskId)).status);
    expect(outcomes).toEqual(["parked", "parked", "parked", "parked", "parked", "completed"]);
    const data = notes(await store.read(taskId)).map((e) => e.type === "engine_note" && e.data);
    expect(data).toMatchObject([
      { parks: 1, delayMs: 1000 },
      { parks: 2, delayMs: 2000 },
      { parks: 3, delayMs: 4000 },
      { parks: 4, delayMs: 5000 },
      // The model answered (a tool call) in between: the count starts over.
      { parks: 1, delayMs: 1000, code: "server_error", status: 529 },
    ]);
    // Each leg retired the timer of the park before it: none is left to start a stray leg.
    expect((await store.getTask(taskId)).summary.timers).toEqual({});
  });

  it("runs no tool twice: calls answered before the park keep their results", async () => {
    const store = new MemoryStore();
    let runs = 0;
    const count = defineTool({
      name: "count",
      description: "count",
      inputSchema: z.object({}),
      execute: async () => `run ${++runs}`,
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "count", input: {} }] }, refused, { text: "done" }]);
    const agent: Agent = { model, tools: [count] };
    const taskId = await startTask(store, { objective: "x" });
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ status: "parked", parkedReason: "model" });
    // `sema resume` before the timer is due: the leg asks again at once and retires the timer.
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ status: "completed", result: "done" });
    expect(runs).toBe(1);
    expect(model.requests[2]).toEqual(model.requests[1]);
    const { summary } = await store.getTask(taskId);
    expect(summary.timers).toEqual({});
    expect(summary.runnable).toBe(false);
  });

  it('fails at once with onModelUnavailable: "fail" (today\'s behaviour), naming the failure once', async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const agent: Agent = { model: new ScriptedModel([refused]), onModelUnavailable: "fail" };
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({
      status: "failed",
      error: { code: "ModelError", message: "connect ECONNREFUSED 127.0.0.1:59999 (connection)" },
    });
    expect((await store.getTask(taskId)).summary.timers).toBeUndefined();
  });

  it("fails at once on a failure that is not retryable, whatever the setting", async () => {
    const store = new MemoryStore();
    for (const onModelUnavailable of ["park", "fail"] as const) {
      const taskId = await startTask(store, { objective: onModelUnavailable });
      const model = new ScriptedModel([{ error: { message: "invalid x-api-key", code: "auth", status: 401 } }]);
      expect(await runLeg({ store, agent: { model, onModelUnavailable } }, taskId)).toMatchObject({
        status: "failed",
        error: { code: "ModelError", message: "invalid x-api-key (auth, HTTP 401)" },
      });
      const events = await store.read(taskId);
      expect(events.some((e) => e.type === "wake_scheduled" && isModelWait(e.wakeId))).toBe(false);
    }
  });

  it("a task cancelled while its model failed ends cancelled, with no timer to wake it", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model: Model = {
      id: "test:cancelled-mid-call",
      async *stream() {
        await cancel(store, taskId);
        yield { type: "error", failure: failure() };
      },
    };
    expect(await runLeg({ store, agent: { model } }, taskId)).toMatchObject({ status: "cancelled" });
    const events = await store.read(taskId);
    expect(events.filter((e) => e.type === "leg_ended").map((e) => e.type === "leg_ended" && e.reason)).toEqual([
      "cancelled",
    ]);
    expect(events.some((e) => e.type === "wake_scheduled")).toBe(false);
  });
});
