import type { JsonValue } from "@sema-agent/core";
import type { ScoredToolCall } from "@sema-agent/core/scoring";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { handBuilt, recorded, verdict } from "./test-support.ts";
import { type ExpectedToolCall, type ToolTrajectoryOptions, toolTrajectory } from "./tool-trajectory.ts";

/** The calls made, by hand. */
function made(...calls: [string, JsonValue?][]) {
  return handBuilt({
    toolCalls: calls.map(([name, input]): ScoredToolCall => ({ name, input: input ?? {}, status: "ok" })),
  });
}

/** A task that looked Lisbon up, searched, then sent a note. */
const TRIP = [
  { toolCalls: [{ name: "lookup", input: { city: "Lisbon", units: "metric" } }] },
  { toolCalls: [{ name: "search", input: { query: "weather" } }] },
  { toolCalls: [{ name: "send", input: { to: "ana", body: "sunny" } }] },
  { text: "Sent." },
];

describe("toolTrajectory", () => {
  it("scores a recorded task's calls against calls given to the scorer, in order by default", async () => {
    const { input } = await recorded(TRIP);
    const scorer = toolTrajectory({ calls: [{ name: "lookup", input: { city: "Lisbon" } }, { name: "send" }] });
    expect(await verdict(scorer, input)).toEqual({ value: 1 });
    const backwards = toolTrajectory({ calls: [{ name: "send" }, { name: "lookup" }] });
    expect(await verdict(backwards, input)).toEqual({
      value: 0.5,
      reason:
        "1 of 2 expected calls matched (in-order); expected call 2, lookup, was made, but out of order; calls made: lookup, search, send",
    });
  });

  it("reads the calls from the case's expected when the scorer has none", async () => {
    const { input } = await recorded(TRIP, {
      expected: { toolCalls: [{ name: "lookup", input: { city: "Porto" } }, { name: "search" }] },
    });
    expect(await verdict(toolTrajectory(), input)).toEqual({
      value: 0.5,
      reason:
        '1 of 2 expected calls matched (in-order); expected call 1, lookup {"city":"Porto"}, was never made; calls made: lookup, search, send',
    });
  });

  it("compares inputs as a subset, exactly, or not at all", async () => {
    const input = made(["lookup", { city: "Lisbon", units: "metric" }]);
    const wanted: ExpectedToolCall[] = [{ name: "lookup", input: { city: "Lisbon" } }];
    expect((await verdict(toolTrajectory({ calls: wanted }), input)).value).toBe(1);
    expect((await verdict(toolTrajectory({ calls: wanted, matchInput: "exact" }), input)).value).toBe(0);
    const other: ExpectedToolCall[] = [{ name: "lookup", input: { city: "Porto" } }];
    expect((await verdict(toolTrajectory({ calls: other, matchInput: "name-only" }), input)).value).toBe(1);
  });

  it("exact order: position by position, out of the longer sequence, naming the first difference", async () => {
    const calls: ExpectedToolCall[] = [{ name: "lookup" }, { name: "search" }, { name: "send" }];
    const exact = toolTrajectory({ calls, order: "exact" });
    expect(await verdict(exact, made(["lookup"], ["search"], ["send"]))).toEqual({ value: 1 });
    expect(await verdict(exact, made(["lookup"], ["send"], ["search"]))).toEqual({
      value: 1 / 3,
      reason: "1 of 3 calls match in place; call 2: expected search, got send {}; calls made: lookup, send, search",
    });
    expect((await verdict(exact, made(["lookup"], ["search"]))).reason).toMatch(
      /^2 of 3 calls match in place; call 3 was never made: expected send;/,
    );
    expect(await verdict(exact, made(["lookup"], ["search"], ["send"], ["send"]))).toMatchObject({
      value: 3 / 4,
      reason: expect.stringMatching(/call 4 is not expected: got send \{\}/),
    });
    expect(await verdict(toolTrajectory({ calls: [], order: "exact" }), made())).toEqual({ value: 1 });
    expect((await verdict(toolTrajectory({ calls: [], order: "exact" }), made(["send"]))).value).toBe(0);
  });

  it("any order: each expected call paired with a distinct call made", async () => {
    const calls: ExpectedToolCall[] = [
      { name: "send" },
      { name: "lookup", input: { city: "Lisbon" } },
      { name: "send" },
    ];
    const anyOrder = toolTrajectory({ calls, order: "any-order" });
    expect(await verdict(anyOrder, made(["send"], ["lookup", { city: "Lisbon" }], ["send"]))).toEqual({ value: 1 });
    expect(await verdict(anyOrder, made(["lookup", { city: "Lisbon" }], ["send"]))).toEqual({
      value: 2 / 3,
      reason:
        "2 of 3 expected calls matched (any-order); expected call 3, send, was made fewer times than expected; calls made: lookup, send",
    });
    // A general expected call does not take the only call a specific one can have.
    const general = toolTrajectory({
      calls: [{ name: "lookup" }, { name: "lookup", input: { city: "Lisbon" } }],
      order: "any-order",
    });
    expect(await verdict(general, made(["lookup", { city: "Lisbon" }], ["lookup", { city: "Porto" }]))).toEqual({
      value: 1,
    });
  });

  it("scores 0, saying why, with no expected calls or an expected value of another shape", async () => {
    expect((await verdict(toolTrajectory(), made(["send"]))).reason).toMatch(/^no expected value/);
    const input = made(["send"]);
    input.expected = ["send"];
    expect((await verdict(toolTrajectory(), input)).reason).toBe(
      'expected must be { toolCalls: [{ name, input? } …] } when the scorer has no calls, not ["send"]',
    );
    input.expected = { toolCalls: [{ input: {} }] };
    expect((await verdict(toolTrajectory(), input)).reason).toBe("expected.toolCalls[0].name must be a tool's name");
  });

  it("refuses malformed calls and unknown modes where it is defined", () => {
    expect(() => toolTrajectory({ calls: [{ name: "" }] })).toThrow(/toolTrajectory: calls\[0\]\.name must be/);
    expect(() => toolTrajectory({ order: "sorted" as never })).toThrow(/order must be one of/);
    expect(() => toolTrajectory({ matchInput: "fuzzy" as never })).toThrow(/matchInput must be one of/);
  });

  /** Calls from a few names and small inputs, so that trajectories repeat and overlap. */
  const call = fc.record({
    name: fc.constantFrom("lookup", "search", "send"),
    input: fc.oneof(fc.constant({}), fc.record({ city: fc.constantFrom("Lisbon", "Porto") })),
  });
  const orders = fc.constantFrom<NonNullable<ToolTrajectoryOptions["order"]>>("exact", "in-order", "any-order");
  const inputs = fc.constantFrom<NonNullable<ToolTrajectoryOptions["matchInput"]>>("subset", "exact", "name-only");

  it("scores a trajectory against itself 1, in every order and input mode (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 8 }), orders, inputs, async (calls, order, matchInput) => {
        const input = handBuilt({ toolCalls: calls });
        expect(await verdict(toolTrajectory({ calls, order, matchInput }), input)).toEqual({ value: 1 });
      }),
    );
  });

  it("scores any-order the same however the calls made are permuted, in [0, 1] (property)", async () => {
    const trajectories = fc
      .array(call, { maxLength: 8 })
      .chain((calls) => fc.tuple(fc.constant(calls), fc.shuffledSubarray(calls, { minLength: calls.length })));
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { maxLength: 6 }),
        trajectories,
        inputs,
        async (wanted, [calls, shuffled], matchInput) => {
          const scorer = toolTrajectory({ calls: wanted, order: "any-order", matchInput });
          const before = await verdict(scorer, handBuilt({ toolCalls: calls }));
          const after = await verdict(scorer, handBuilt({ toolCalls: shuffled }));
          expect(after.value).toBe(before.value);
          expect(before.value).toBeGreaterThanOrEqual(0);
          expect(before.value).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
