import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { costUsd, exceededLimit, formatDuration, priceOf } from "./budget.ts";

const turn = (inputTokens: number, outputTokens: number) => ({
  toolCalls: [],
  text: "",
  usage: { inputTokens, outputTokens },
});
const busy = (n: number, usage = { inputTokens: 1000, outputTokens: 200 }) =>
  Array.from({ length: n }, () => ({ toolCalls: [{ name: "missing", input: {} }], usage }));

describe("budgets", () => {
  it("parks before a call whose input alone would not fit, says which limit, and resumes after it is raised", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model = new ScriptedModel([...busy(3), turn(10, 10)], { mode: "by-transcript" });
    const outcome = await runLeg({ store, agent: { model, budget: { maxTokens: 2000 } } }, taskId);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "budget" });
    // 1,200 spent, 800 left: the next prompt is at least the last one's 1,000 tokens.
    expect(model.calls).toBe(1);
    const record = await store.getTask(taskId);
    expect(record.summary).toMatchObject({
      parkedReason: "budget",
      parkedDetail: "tokens",
      usage: { inputTokens: 1000, outputTokens: 200 },
    });
    const note = (await store.read(taskId)).find((e) => e.type === "engine_note");
    expect(note).toMatchObject({ kind: "budget", data: { limit: "tokens" } });
    expect(note?.type === "engine_note" ? note.text : "").toMatch(
      /^The next model call needs about 10\d\d tokens of input, more than the 800 left of the task's limit of 2000\.$/,
    );
    const resumed = await runLeg({ store, agent: { model, budget: { maxTokens: 100_000 } } }, taskId);
    expect(resumed.status).toBe("completed");
  });

  it("clamps maxOutputTokens to what the input leaves, and parks once the limit is reached", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    // This provider ignores maxOutputTokens: the turn that crosses the limit overshoots it.
    const model = new ScriptedModel([...busy(3), turn(10, 10)], { mode: "by-transcript" });
    const outcome = await runLeg(
      { store, agent: { model, budget: { maxTokens: 2400 }, maxOutputTokens: 500 } },
      taskId,
    );
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "budget" });
    expect(model.requests.map((r) => r.maxOutputTokens)).toEqual([500, expect.any(Number)]);
    // 1,200 left after the first turn, less the second prompt's estimate (1,000 and a little).
    expect(model.requests[1]?.maxOutputTokens).toBeGreaterThan(150);
    expect(model.requests[1]?.maxOutputTokens).toBeLessThan(200);
    const note = (await store.read(taskId)).find((e) => e.type === "engine_note");
    expect(note).toMatchObject({
      kind: "budget",
      data: { limit: "tokens" },
      text: "The task used 2400 tokens, reaching its limit of 2400.",
    });
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
    // $0.45 a turn: after two, $0.10 is left, less than the third prompt's input alone (~$0.30).
    expect(model.calls).toBe(2);
    // The second call's output was bounded by what its input left: ($1 − $0.45 − ~$0.30) / $15 per million.
    expect(model.requests[1]?.maxOutputTokens).toBeGreaterThan(16_600);
    expect(model.requests[1]?.maxOutputTokens).toBeLessThan(16_700);
    const note = (await store.read(taskId)).find((e) => e.type === "engine_note");
    expect(note?.type === "engine_note" ? note.text : "").toMatch(
      /^The next model call's input costs about \$0\.300\d, more than the \$0\.1000 left of the task's limit of \$1\.$/,
    );
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

  it("says a time under a second in milliseconds", () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const events = [
      { type: "task_created", v: 1, objective: "x", principal: "p" },
      { type: "leg_started", v: 1, legId: "leg-1", trigger: "start", at: at(0) },
      { type: "leg_ended", v: 1, legId: "leg-1", reason: "parked:interrupt", at: at(200) },
    ] as TaskEvent[];
    const state = fold(events);
    expect(exceededLimit(state, { maxActiveMs: 200 }, "m", 0)?.text).toBe(
      "The task ran for 200 ms, reaching its limit of 200 ms.",
    );
    expect(exceededLimit(state, { maxActiveMs: 201 }, "m", 0)).toBeUndefined();
    expect(formatDuration(999.4)).toBe("999 ms");
    expect(formatDuration(999.6)).toBe("1 s");
    expect(formatDuration(61_000)).toBe("61 s");
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
