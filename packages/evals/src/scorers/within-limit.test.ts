import { scoreTask } from "@sema-agent/core/scoring";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { latency } from "./latency.ts";
import { handBuilt, recorded, verdict } from "./test-support.ts";
import { tokens } from "./tokens.ts";
import { turns } from "./turns.ts";
import { withinLimit } from "./within-limit.ts";

/** A recorded task of three turns of 10 input and 5 output tokens each (the script's default). */
const THREE_TURNS = [
  { toolCalls: [{ name: "lookup", input: { city: "Lisbon" } }] },
  { toolCalls: [{ name: "search", input: { query: "weather" } }] },
  { text: "Sunny." },
];

describe("the limit scorers", () => {
  it("turns: 1 within the limit, else the limit over the turns taken", async () => {
    const { store, taskId } = await recorded(THREE_TURNS);
    expect(await scoreTask(store, taskId, [turns({ max: 3 })])).toEqual([{ scorer: "turns", value: 1 }]);
    expect(await scoreTask(store, taskId, [turns({ max: 2 })])).toEqual([
      { scorer: "turns", value: 2 / 3, reason: "the task took 3 model turns, over the limit of 2 model turns" },
    ]);
    expect((await verdict(turns({ max: 0 }), handBuilt({ turns: 1 }))).reason).toBe(
      "the task took 1 model turn, over the limit of 0 model turns",
    );
  });

  it("tokens: counts input, output or both, its sub-tasks' included", async () => {
    const { input } = await recorded(THREE_TURNS);
    expect(await verdict(tokens({ max: 45 }), input)).toEqual({ value: 1 });
    expect(await verdict(tokens({ max: 30, include: "input" }), input)).toEqual({ value: 1 });
    expect(await verdict(tokens({ max: 5, include: "output" }), input)).toEqual({
      value: 1 / 3,
      reason: "the task used 15 output tokens, over the limit of 5 output tokens",
    });
    const delegated = handBuilt({
      usage: { inputTokens: 100, outputTokens: 20 },
      childUsage: { inputTokens: 60, outputTokens: 20 },
    });
    expect(await verdict(tokens({ max: 100 }), delegated)).toEqual({
      value: 0.5,
      reason: "the task used 200 tokens, over the limit of 100 tokens (80 of them by its sub-tasks)",
    });
  });

  it("latency: the task's duration by its log's times", async () => {
    const { input } = await recorded(THREE_TURNS);
    expect(await verdict(latency({ maxMs: 60_000 }), input)).toEqual({ value: 1 });
    expect(await verdict(latency({ maxMs: 1_000 }), handBuilt({ durationMs: 4_000 }))).toEqual({
      value: 0.25,
      reason: "the task took 4000 ms, over the limit of 1000 ms",
    });
  });

  it("scores a task that did not complete by what it spent", async () => {
    const failed = handBuilt({ status: "failed", turns: 9 });
    expect((await verdict(turns({ max: 3 }), failed)).value).toBe(1 / 3);
  });

  it("refuses a limit that is negative, not finite or missing, and an unknown include", () => {
    expect(() => turns({ max: -1 })).toThrow(/turns: max must be a finite number of at least 0/);
    expect(() => tokens({ max: Number.NaN })).toThrow(/tokens: max must be/);
    expect(() => tokens({ max: 1, include: "cached" as never })).toThrow(/tokens: include must be one of/);
    expect(() => latency({} as never)).toThrow(expect.objectContaining({ code: "ConfigError" }));
    expect(() => latency({ maxMs: Number.POSITIVE_INFINITY })).toThrow(/latency: maxMs must be/);
  });

  it("grades 1 up to the limit, then limit over spent, falling as the spend grows (property)", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), (limit, spent, more) => {
        const { value } = withinLimit(spent, limit, String, "spent");
        expect(value).toBe(spent <= limit ? 1 : limit / spent);
        expect(withinLimit(spent + more, limit, String, "spent").value).toBeLessThanOrEqual(value);
      }),
    );
  });
});
