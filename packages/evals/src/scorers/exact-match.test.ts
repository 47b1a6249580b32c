import { scoreTask } from "@sema-agent/core/scoring";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactMatch } from "./exact-match.ts";
import { answered, recorded, verdict } from "./test-support.ts";

/** Text of any Unicode graphemes. */
const text = fc.string({ unit: "grapheme" });
/** Whitespace `String.prototype.trim` removes. */
const blank = fc.string({ unit: fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\ufeff") });

describe("exactMatch", () => {
  it("scores a recorded task's answer through scoreTask, and records the verdict", async () => {
    const { store, taskId } = await recorded([{ text: "  Lisbon\n" }]);
    expect(await scoreTask(store, taskId, [exactMatch()], { expected: "Lisbon" })).toEqual([
      { scorer: "exact-match", value: 1 },
    ]);
    const [result] = await scoreTask(store, taskId, [exactMatch()], { expected: "Lisboa" });
    expect(result).toMatchObject({ scorer: "exact-match", value: 0 });
    expect(result?.reason).toBe('expected "Lisboa", got "Lisbon" (they differ from character 6)');
    expect((await store.getTask(taskId)).summary.scores?.["exact-match"]?.value).toBe(0);
  });

  it("compares JSON expected with the output's JSON, keys in any order", async () => {
    const { input } = await recorded([{ text: '{"b":[1,2],"a":"x"}' }], { expected: { a: "x", b: [1, 2] } });
    expect(await verdict(exactMatch(), input)).toEqual({ value: 1 });
    expect(await verdict(exactMatch(), answered('{"a":"x","b":[2,1]}', { a: "x", b: [1, 2] }))).toEqual({
      value: 0,
      reason: 'expected {"a":"x","b":[1,2]}, got {"a":"x","b":[2,1]}',
    });
    expect(await verdict(exactMatch(), answered("42", 42))).toEqual({ value: 1 });
    expect((await verdict(exactMatch(), answered("forty-two", 42))).reason).toBe(
      'expected the JSON 42, got text that is not JSON: "forty-two"',
    );
  });

  it("follows its trim and case options", async () => {
    expect((await verdict(exactMatch({ trim: false }), answered(" Lisbon", "Lisbon"))).value).toBe(0);
    expect((await verdict(exactMatch(), answered("LISBON", "Lisbon"))).value).toBe(0);
    expect(await verdict(exactMatch({ caseSensitive: false }), answered("LISBON", "lisbon"))).toEqual({ value: 1 });
    expect(await verdict(exactMatch({ caseSensitive: false }), answered("Lisboa", "lisbon"))).toEqual({
      value: 0,
      reason: 'expected "lisbon", got "Lisboa" (ignoring case)',
    });
  });

  it("shows where two long texts part, not only their starts", async () => {
    const common = "a".repeat(300);
    const { reason } = await verdict(exactMatch(), answered(`${common}X tail`, `${common}Y tail`));
    expect(reason).toContain("differ from character 301");
    expect(reason).toContain('…"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaY tail"');
  });

  it("scores 0, saying why, without an expected value or an output", async () => {
    expect(await verdict(exactMatch(), answered("Lisbon"))).toEqual({
      value: 0,
      reason: "no expected value to compare with: pass the exact answer as the case's expected",
    });
    const failed = await recorded([{ error: { message: "provider down" } }], { expected: "Lisbon" });
    expect(await verdict(exactMatch(), failed.input)).toEqual({
      value: 0,
      reason: "the task has no output to score (status failed)",
    });
  });

  it("refuses options of the wrong type where it is defined", () => {
    expect(() => exactMatch({ trim: "yes" as never })).toThrow(/exactMatch: trim must be a boolean/);
    expect(() => exactMatch({ caseSensitive: 1 as never })).toThrow(expect.objectContaining({ code: "ConfigError" }));
  });

  it("is reflexive, ignores surrounding whitespace, and ignores case only when asked (property)", async () => {
    await fc.assert(
      fc.asyncProperty(text, blank, blank, async (s, before, after) => {
        expect((await verdict(exactMatch(), answered(s, s))).value).toBe(1);
        expect((await verdict(exactMatch({ trim: false, caseSensitive: false }), answered(s, s))).value).toBe(1);
        expect((await verdict(exactMatch(), answered(`${before}${s}${after}`, s))).value).toBe(1);
        const padded = (await verdict(exactMatch({ trim: false }), answered(`${before}${s}${after}`, s))).value;
        expect(padded).toBe(before === "" && after === "" ? 1 : 0);
        const insensitive = exactMatch({ caseSensitive: false });
        expect((await verdict(insensitive, answered(s.toUpperCase(), s))).value).toBe(1);
        expect((await verdict(insensitive, answered(s, s.toLowerCase()))).value).toBe(1);
        const sensitive = (await verdict(exactMatch(), answered(s.toUpperCase(), s))).value;
        expect(sensitive).toBe(s.toUpperCase().trim() === s.trim() ? 1 : 0);
      }),
    );
  });
});
