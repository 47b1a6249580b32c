import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { Store } from "../../ports/store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { requestResume } from "../tasks/control.ts";
import { startTask } from "../tasks/start-task.ts";
import { type QuotaGate, storeQuotaGate } from "./quota-gate.ts";
import type { Quotas } from "./quotas.ts";

// Only the clock is faked: the test moves it to the window's edge instead of waiting for it.
afterEach(() => vi.useRealTimers());
const T0 = Date.parse("2026-12-10T12:30:00.000Z");
const HOUR = 3_600_000;

const spend = (inputTokens: number, text = "done") => ({ text, usage: { inputTokens, outputTokens: 5 } });

async function setUp(quotas: Quotas) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
  const store = new MemoryStore();
  const config: Record<string, Quotas> = { alice: quotas };
  const quota = storeQuotaGate({ store, quotasFor: (principal) => config[principal], now: () => Date.now() });
  return { store, config, quota };
}

async function spent(store: Store, principal: string): Promise<number> {
  const usage = await store.usage?.({ principal, sinceMs: T0 - 48 * HOUR });
  return (usage?.buckets ?? []).reduce((sum, b) => sum + b.inputTokens + b.outputTokens, 0);
}

describe("quotas per principal park the task (parked:quota)", () => {
  it("parks at the day quota with the quota named, and resumes at the window's edge", async () => {
    const { store, quota } = await setUp({ tokensPerDay: 10_000 });
    const model = new ScriptedModel([spend(9990), { text: "later" }]);
    const agent: Agent = { model };
    const first = await startTask(store, { objective: "x", principal: "alice" });
    expect(await runLeg({ store, agent, quota }, first)).toMatchObject({ status: "completed" });
    expect(await spent(store, "alice")).toBe(9995);

    const second = await startTask(store, { objective: "a longer objective than the rest", principal: "alice" });
    const parked = await runLeg({ store, agent, quota }, second);
    expect(parked).toMatchObject({ status: "parked", parkedReason: "quota" });
    const { summary } = await store.getTask(second);
    expect(summary).toMatchObject({ parkedReason: "quota", parkedDetail: "tokensPerDay" });
    // The turn of 12:xx leaves the rolling day at 12:00 the next day.
    const due = Date.parse("2026-12-11T12:00:00.000Z");
    expect(summary.timers).toEqual({ [`quota-wait:${parked.legId}`]: due });
    const note = (await store.read(second)).find((e) => e.type === "engine_note" && e.kind === "quota");
    expect(note).toMatchObject({
      text: expect.stringMatching(
        /^The principal alice used 9995 of its 10000 tokens per day .* until 2026-12-11T12:00:00\.000Z\.$/,
      ),
      data: { quota: "tokensPerDay", due: "2026-12-11T12:00:00.000Z" },
    });
    // The other principal is not held by alice's quota, and no call was made for the parked task.
    expect(model.requests).toHaveLength(1);

    vi.setSystemTime(due - 1);
    expect(await store.listRunnable()).toEqual([]);
    vi.setSystemTime(due);
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([second]);
    expect(await runLeg({ store, agent, quota }, second)).toMatchObject({ status: "completed", result: "later" });
    // The timer delivered no message: the model saw the objective alone.
    const events = await store.read(second);
    expect(events.filter((e) => e.type === "user_message")).toHaveLength(1);
    model.assertConsumed();
  });

  it("an operator raises the quota and asks for a resume: the task runs again at once", async () => {
    const { store, config, quota } = await setUp({ tokensPerMonth: 10_000 });
    const model = new ScriptedModel([spend(9990), { text: "after the raise" }]);
    const agent: Agent = { model };
    const first = await startTask(store, { objective: "x", principal: "alice" });
    await runLeg({ store, agent, quota }, first);
    const second = await startTask(store, { objective: "y", principal: "alice" });
    expect(await runLeg({ store, agent, quota }, second)).toMatchObject({ parkedReason: "quota" });
    expect(Object.values((await store.getTask(second)).summary.timers ?? {})).toEqual([
      Date.parse("2027-01-01T00:00:00.000Z"),
    ]);
    // Still over: a resume alone parks it again.
    await requestResume(store, second);
    expect(await runLeg({ store, agent, quota }, second)).toMatchObject({ parkedReason: "quota" });
    config.alice = { tokensPerMonth: 100_000 };
    await requestResume(store, second);
    expect(await runLeg({ store, agent, quota }, second)).toMatchObject({
      status: "completed",
      result: "after the raise",
    });
  });

  it("another principal's spend does not count, and a principal without quotas is never parked", async () => {
    const { store, quota } = await setUp({ tokensPerDay: 10_000 });
    const agent: Agent = { model: new ScriptedModel([spend(50_000), spend(10), spend(10)]) };
    const bob = await startTask(store, { objective: "x", principal: "bob" });
    expect(await runLeg({ store, agent, quota }, bob)).toMatchObject({ status: "completed" });
    const bob2 = await startTask(store, { objective: "x", principal: "bob" });
    expect(await runLeg({ store, agent, quota }, bob2)).toMatchObject({ status: "completed" });
    const alice = await startTask(store, { objective: "x", principal: "alice" });
    expect(await runLeg({ store, agent, quota }, alice)).toMatchObject({ status: "completed" });
  });

  it("a call larger than the whole quota parks with no timer: only a raise lets it run", async () => {
    const { store, quota } = await setUp({ tokensPerDay: 1 });
    const taskId = await startTask(store, { objective: "x", principal: "alice" });
    expect(await runLeg({ store, agent: { model: new ScriptedModel([]) }, quota }, taskId)).toMatchObject({
      parkedReason: "quota",
    });
    expect((await store.getTask(taskId)).summary.parkedDetail).toBe("tokensPerDay");
    expect((await store.getTask(taskId)).summary.timers ?? {}).toEqual({});
    expect(await store.listRunnable()).toEqual([]);
  });
});

describe("the concurrentTasks quota refuses a creation (startTask maxActiveTasks)", () => {
  it("refuses past the limit with QuotaExceeded, and takes the task once a running one parks", async () => {
    const store = new MemoryStore();
    const first = await startTask(store, { objective: "x", principal: "alice", maxActiveTasks: 1 });
    await expect(startTask(store, { objective: "y", principal: "alice", maxActiveTasks: 1 })).rejects.toMatchObject({
      code: "QuotaExceeded",
      isRetryable: true,
      quota: "concurrentTasks",
    });
    // Bob is not held by alice's tasks.
    await startTask(store, { objective: "z", principal: "bob", maxActiveTasks: 1 });
    const model = new ScriptedModel([{ text: "done" }]);
    await runLeg({ store, agent: { model } }, first);
    await startTask(store, { objective: "y", principal: "alice", maxActiveTasks: 1 });
  });

  it("is a ConfigError on a store that counts no usage", async () => {
    const store = new MemoryStore();
    const bare: Store = { ...store, createTask: store.createTask.bind(store), usage: undefined } as unknown as Store;
    await expect(startTask(bare, { objective: "x", maxActiveTasks: 1 })).rejects.toMatchObject({ code: "ConfigError" });
  });
});

describe("HarnessOptions.quota is checked with the rest of the options", () => {
  it("refuses something that is not a QuotaGate before anything is appended", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const quota = { allow: true } as unknown as QuotaGate;
    await expect(runLeg({ store, agent: { model: new ScriptedModel([]) }, quota }, taskId)).rejects.toMatchObject({
      code: "ConfigError",
      message: expect.stringContaining("QuotaGate"),
    });
    expect(await store.read(taskId)).toHaveLength(2);
  });
});
