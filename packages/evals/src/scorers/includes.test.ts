import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { includes } from "./includes.ts";
import { answered, recorded, verdict } from "./test-support.ts";

const text = fc.string({ unit: "grapheme" });

describe("includes", () => {
  it("finds the expected text in a recorded answer, ignoring case by default", async () => {
    const { input } = await recorded([{ text: "The capital is LISBON." }], { expected: "Lisbon" });
    expect(await verdict(includes(), input)).toEqual({ value: 1 });
    expect(await verdict(includes({ caseSensitive: true }), input)).toEqual({
      value: 0,
      reason: 'the output does not contain "Lisbon": "The capital is LISBON."',
    });
  });

  it("folds case beyond ASCII: ß and SS, a final and a middle sigma", async () => {
    expect(await verdict(includes(), answered("IN DER STRASSE", "straße"))).toEqual({ value: 1 });
    expect(await verdict(includes(), answered("ΚΟΣΜΟΣ", ["κοσμος", "σ", "ς"]))).toEqual({ value: 1 });
    expect(await verdict(includes(), answered("κοσμος", "ΣΜ"))).toEqual({ value: 1 });
  });

  it("scores the fraction of several expected texts found, and names those missing", async () => {
    const input = answered("Lisbon, Porto and Faro", ["lisbon", "Porto", "Braga", "Evora"]);
    expect(await verdict(includes(), input)).toEqual({
      value: 0.5,
      reason: 'found 2 of 4 expected texts; missing "Braga", "Evora"',
    });
    const many = answered("none", ["a1", "a2", "a3", "a4", "a5", "a6", "a7"]);
    expect((await verdict(includes(), many)).reason).toBe(
      'found 0 of 7 expected texts; missing "a1", "a2", "a3", "a4", "a5", and 2 more',
    );
    expect(await verdict(includes(), answered("anything", []))).toEqual({ value: 1 });
  });

  it("scores 0, saying why, for a missing or unusable expected value and a missing output", async () => {
    expect((await verdict(includes(), answered("Lisbon"))).reason).toMatch(/^no expected value/);
    expect(await verdict(includes(), answered("Lisbon", { city: "Lisbon" }))).toEqual({
      value: 0,
      reason: 'expected must be a text or an array of texts to look for, not {"city":"Lisbon"}',
    });
    expect(await verdict(includes(), answered("1 2", ["1", 2]))).toMatchObject({ value: 0 });
    expect(await verdict(includes(), answered(undefined, "Lisbon"))).toEqual({
      value: 0,
      reason: "the task has no output to score (status failed)",
    });
  });

  it("refuses a caseSensitive that is not a boolean", () => {
    expect(() => includes({ caseSensitive: "no" as never })).toThrow(/includes: caseSensitive must be a boolean/);
  });

  it("scores in [0, 1], and 1 when every expected text is in the output, in any case (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 6 }), fc.array(text), text, async (needles, gaps, haystack) => {
        const score = (await verdict(includes(), answered(haystack, needles))).value;
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        const woven = needles.map((needle, i) => `${gaps[i] ?? ""}${needle}`).join("");
        expect((await verdict(includes({ caseSensitive: true }), answered(woven, needles))).value).toBe(1);
        expect((await verdict(includes(), answered(woven.toUpperCase(), needles))).value).toBe(1);
        expect((await verdict(includes(), answered(woven.toLowerCase(), needles))).value).toBe(1);
      }),
    );
  });
});
