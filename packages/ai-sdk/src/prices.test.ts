import { MemoryStore, priceOf, runLeg, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "./prices.ts";

describe("DEFAULT_PRICES", () => {
  it("prices a model by its id after the provider prefix, the longest prefix first", () => {
    expect(priceOf("anthropic:claude-sonnet-4-5", DEFAULT_PRICES)).toEqual({ input: 3, output: 15, cachedInput: 0.3 });
    expect(priceOf("openai:gpt-5-mini-2025", DEFAULT_PRICES)).toEqual({ input: 0.25, output: 2, cachedInput: 0.025 });
    expect(priceOf("openai:gpt-5", DEFAULT_PRICES)).toEqual({ input: 1.25, output: 10, cachedInput: 0.125 });
    expect(priceOf("acme:unknown", DEFAULT_PRICES)).toBeUndefined();
  });

  it("stops a task at its cost limit when passed as the budget's prices", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const usage = { inputTokens: 100_000, outputTokens: 10_000 };
    const busy = Array.from({ length: 10 }, () => ({ toolCalls: [{ name: "missing", input: {} }], usage }));
    const model = new ScriptedModel(busy, { id: "anthropic:claude-sonnet-4-5" });
    const budget = { maxCostUsd: 1, prices: { ...DEFAULT_PRICES } };
    const outcome = await runLeg({ store, agent: { model, budget } }, taskId);
    expect(outcome).toMatchObject({ parkedReason: "budget" });
    // Each call costs $0.45 (100k input at $3/M, 10k output at $15/M). After two, $0.10 is left,
    // and the third call's input alone (estimated from the last prompt: about $0.30) cannot fit,
    // so the task parks before making it instead of overspending.
    expect(model.calls).toBe(2);
  });
});
