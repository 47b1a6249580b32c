import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeRegex, regex } from "./regex.ts";
import { answered, recorded, verdict } from "./test-support.ts";

const text = fc.string({ unit: "grapheme" });

describe("regex", () => {
  it("matches a recorded answer against the scorer's pattern, with its flags", async () => {
    const { input } = await recorded([{ text: "Total: 42 EUR" }]);
    expect(await verdict(regex({ pattern: "^total: \\d+ eur$", flags: "i" }), input)).toEqual({ value: 1 });
    expect(await verdict(regex({ pattern: "\\d+ USD" }), input)).toEqual({
      value: 0,
      reason: 'the output does not match /\\d+ USD/: "Total: 42 EUR"',
    });
  });

  it("takes the case's expected as the pattern when the scorer has none", async () => {
    expect(await verdict(regex(), answered("order #1234 placed", "#\\d{4}"))).toEqual({ value: 1 });
    expect(await verdict(regex({ flags: "i" }), answered("LISBON", "^lisbon$"))).toEqual({ value: 1 });
    expect(await verdict(regex(), answered("x", "("))).toEqual({
      value: 0,
      reason: 'the expected pattern "(" does not compile: Invalid regular expression: /(/: Unterminated group',
    });
    expect((await verdict(regex(), answered("x", 3))).reason).toBe(
      "expected must be a pattern text when the scorer has none, not 3",
    );
    expect((await verdict(regex(), answered("x"))).reason).toMatch(/^no expected value/);
    expect((await verdict(regex({ pattern: "x" }), answered(undefined))).reason).toBe(
      "the task has no output to score (status failed)",
    );
  });

  it("gives the same verdict each time, even with a global flag", async () => {
    const scorer = regex({ pattern: "a", flags: "g" });
    for (let i = 0; i < 3; i += 1) expect(await verdict(scorer, answered("a"))).toEqual({ value: 1 });
  });

  it("tests only the output's first 10,000 characters, and says so", async () => {
    const long = `${"x".repeat(10_000)}needle`;
    const { value, reason } = await verdict(regex({ pattern: "needle" }), answered(long));
    expect(value).toBe(0);
    expect(reason).toContain("(only its first 10000 of 10006 characters were tested)");
    // A pattern that backtracks quadratically ends promptly on a long output: all 200,000
    // characters would take tens of seconds, the first 10,000 take about a tenth of one.
    const started = performance.now();
    expect((await verdict(regex({ pattern: "\\s*x" }), answered(`${" ".repeat(200_000)}x`))).value).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("refuses a pattern or flags that do not compile where it is defined", () => {
    expect(() => regex({ pattern: "(" })).toThrow(/regex: pattern Invalid regular expression/);
    expect(() => regex({ flags: "zz" })).toThrow(/regex: flags Invalid flags/);
    expect(() => regex({ pattern: 3 as never })).toThrow(expect.objectContaining({ code: "ConfigError" }));
  });

  it("escapes any literal text so that it matches itself, with or without the u flag (property)", async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, fc.constantFrom("", "u", "i", "s"), async (literal, before, after, flags) => {
        const pattern = escapeRegex(literal);
        expect(new RegExp(`^${pattern}$`, flags).test(literal)).toBe(true);
        expect((await verdict(regex({ pattern, flags }), answered(`${before}${literal}${after}`))).value).toBe(1);
        expect((await verdict(regex({ pattern: `^${pattern}$`, flags }), answered(`${literal}!`))).value).toBe(0);
      }),
    );
  });
});
