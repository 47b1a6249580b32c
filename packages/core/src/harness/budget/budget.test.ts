import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { costUsd, priceOf } from "./budget.ts";

const turn = (inputTokens: number, outputTokens: number) => ({
  toolCalls: [],
  text: "",
  usage: { inputTokens, outputTokens },
});
const busy = (n: number, usage = { inputTokens: 1000, outputTokens: 200 }) =>
  Array.from({ length: n }, () => ({ toolCalls: [{ name: "missing", input: {} }], usage }));

describe("budgets", () => {
  it("parks the task at its token limit, says which limit, and resumes after it is raised", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model = new ScriptedModel([...busy(3), turn(10, 10)], { mode: "by-transcript" });
    const outcome = await runLeg({ store, agent: { model, budget: { maxTokens: 2000 } } }, taskId);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "budget" });
    const record = await store.getTask(taskId);
    expect(record.summary).toMatchObject({
      parkedReason: "budget",
      parkedDetail: "tokens",
      usage: { inputTokens: 2000, outputTokens: 400 },
    });
    const note = (await store.read(taskId)).find((e) => e.type === "engine_note");
    expect(note).toMatchObject({
      kind: "budget",
      data: { limit: "tokens" },
      text: "The task used 2400 tokens, reaching its limit of 2000.",
    });
    const resumed = await runLeg({ store, agent: { model, budget: { maxTokens: 100_000 } } }, taskId);
    expect(resumed.status).toBe("completed");
  });

  it("stops at the turn limit, and can fail instead of parking", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const outcome = await runLeg(
      { store, agent: { model: new ScriptedModel(busy(5)), budget: { maxTurns: 2, onExceeded: "fail" } } },
      taskId,
    );
    expect(outcome).toMatchObject({
      status: "failed",
      error: { code: "BudgetExceeded", message: "The task reached its limit of 2 model turns." },
    });
  });

  it("prices a model by its id and stops at the cost limit", async () => {
    expect(
      priceOf("anthropic:claude-sonnet-4-5", {
        "claude-sonnet-4": { input: 3, output: 15 },
        claude: { input: 1, output: 1 },
      }),
    ).toEqual({ input: 3, output: 15 });
    expect(
      costUsd(
        { inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 500_000 },
        { input: 3, output: 15, cachedInput: 0.3 },
      ),
    ).toBeCloseTo(1.5 + 0.15 + 1.5);
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model = new ScriptedModel(busy(10, { inputTokens: 100_000, outputTokens: 10_000 }), {
      id: "anthropic:claude-sonnet-4-5",
    });
    const prices = { "claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3 } };
    const outcome = await runLeg({ store, agent: { model, budget: { maxCostUsd: 1, prices } } }, taskId);
    expect(outcome).toMatchObject({ parkedReason: "budget" });
    expect((await store.getTask(taskId)).summary.parkedDetail).toBe("cost");
    expect(model.calls).toBe(3);
  });

  it("carries no vendor prices: without a price table a model costs nothing against the cost limit", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model = new ScriptedModel([...busy(4, { inputTokens: 100_000, outputTokens: 10_000 }), turn(1, 1)], {
      id: "anthropic:claude-sonnet-4-5",
    });
    const outcome = await runLeg({ store, agent: { model, budget: { maxCostUsd: 1 } } }, taskId);
    expect(outcome).toMatchObject({ status: "completed" });
    expect(model.calls).toBe(5);
  });

  it("counts only time spent in legs against the time limit", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model = new ScriptedModel([{ toolCalls: [{ name: "missing", input: {} }], delayMs: 60 }, turn(1, 1)]);
    const outcome = await runLeg({ store, agent: { model, budget: { maxActiveMs: 40 } } }, taskId);
    expect(outcome).toMatchObject({ parkedReason: "budget" });
    expect((await store.getTask(taskId)).summary.parkedDetail).toBe("time");
  });
});
