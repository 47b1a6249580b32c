import { MemoryStore, type ModelPrice, runLeg, sendInput, startTask } from "@sema-agent/core";
import { scoreInputOf } from "@sema-agent/core/scoring";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { cost } from "./cost.ts";
import { handBuilt, recorded, verdict } from "./test-support.ts";

/** Dollars per million tokens. */
const PRICES: Record<string, ModelPrice> = {
  "gpt-big": { input: 10, output: 30 },
  "gpt-small": { input: 1, output: 2 },
};

describe("cost", () => {
  it("prices each recorded turn by its model, provider prefix and all", async () => {
    // Two turns of 10 input and 5 output tokens: 2 × (10 × 10 + 5 × 30) / 1e6 = $0.0005.
    const { input } = await recorded([{ toolCalls: [{ name: "lookup", input: {} }] }, { text: "Done." }], {
      modelId: "openai:gpt-big-2026",
    });
    expect(await verdict(cost({ maxUsd: 0.0005, prices: PRICES }), input)).toEqual({ value: 1 });
    expect(await verdict(cost({ maxUsd: 0.0001, prices: PRICES }), input)).toEqual({
      value: 0.2,
      reason: "the task's model turns cost $0.0005, over the limit of $0.0001",
    });
  });

  it("prices turns of different models apart: a follow-up leg on another model", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Summarise", principal: "acme" });
    const turn = { text: "Done.", usage: { inputTokens: 1000, outputTokens: 0 } };
    await runLeg({ store, agent: { model: new ScriptedModel([turn], { id: "openai:gpt-big" }) } }, taskId);
    await sendInput(store, taskId, { text: "Shorter, please.", carrier: "wake" });
    await runLeg({ store, agent: { model: new ScriptedModel([turn], { id: "openai:gpt-small" }) } }, taskId);
    const input = scoreInputOf(await store.read(taskId));
    expect(input.models).toEqual(["openai:gpt-big", "openai:gpt-small"]);
    // 1000 input tokens at $10, then 1000 at $1 per million: $0.011.
    expect(await verdict(cost({ maxUsd: 0.0055, prices: PRICES }), input)).toEqual({
      value: 0.5,
      reason: "the task's model turns cost $0.011, over the limit of $0.0055",
    });
  });

  it("scores 0 when a turn's model has no price, naming it", async () => {
    const { input } = await recorded([{ text: "Done." }], { modelId: "anthropic:claude-x" });
    expect(await verdict(cost({ maxUsd: 1, prices: PRICES }), input)).toEqual({
      value: 0,
      reason: "no price for model anthropic:claude-x",
    });
  });

  it("prices an input built by hand when one model took every turn", async () => {
    const byHand = handBuilt({
      models: ["gpt-small", "gpt-small"],
      usage: { inputTokens: 2_000_000, outputTokens: 0 },
    });
    expect(await verdict(cost({ maxUsd: 1, prices: PRICES }), byHand)).toEqual({
      value: 0.5,
      reason: "the task's model turns cost $2, over the limit of $1",
    });
    expect(await verdict(cost({ maxUsd: 0, prices: PRICES }), handBuilt({ turns: 0 }))).toEqual({ value: 1 });
    const mixed = handBuilt({ models: ["gpt-small", "gpt-big"], usage: { inputTokens: 10, outputTokens: 0 } });
    expect((await verdict(cost({ maxUsd: 1, prices: PRICES }), mixed)).reason).toBe(
      "the log does not say what each model turn used, so the turns cannot be priced",
    );
  });

  it("refuses a negative limit and malformed prices where it is defined", () => {
    expect(() => cost({ maxUsd: -1, prices: PRICES })).toThrow(/cost: maxUsd must be a finite number of at least 0/);
    expect(() => cost({ maxUsd: 1, prices: { x: { input: -1, output: 1 } } })).toThrow(
      /cost: prices\["x"\]\.input must be a finite number of at least 0/,
    );
    expect(() => cost({ maxUsd: 1, prices: undefined as never })).toThrow(/prices must be an object/);
  });
});
