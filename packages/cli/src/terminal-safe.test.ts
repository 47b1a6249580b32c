import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonLine, terminalSafe } from "./terminal-safe.ts";

/** Any character a terminal could act on, or that reorders text, other than \n and \t. */
const isUnsafe = (code: number): boolean =>
  (code < 0x20 && code !== 0x0a && code !== 0x09) ||
  (code >= 0x7f && code <= 0x9f) ||
  code === 0x061c ||
  code === 0x200e ||
  code === 0x200f ||
  code === 0x2028 ||
  code === 0x2029 ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069);

const hasUnsafe = (text: string): boolean => [...text].some((char) => isUnsafe(char.codePointAt(0) ?? 0));

// Text weighted towards the dangerous ranges, mixed with ordinary and astral characters.
const dangerous = fc.oneof(
  fc.integer({ min: 0, max: 0x20 }),
  fc.integer({ min: 0x7f, max: 0xa0 }),
  fc.constantFrom(0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2066, 0x2069, 0x1f600, 0x5c),
);
const text = fc.oneof(
  fc.string({
    unit: fc.oneof(
      dangerous.map((code) => String.fromCodePoint(code)),
      fc.string({ maxLength: 1 }),
    ),
  }),
  fc.string({ unit: "grapheme" }),
);

describe("terminalSafe", () => {
  it("never lets out a control character other than newline and tab, and is idempotent", () => {
    fc.assert(
      fc.property(text, (input) => {
        const safe = terminalSafe(input);
        expect(hasUnsafe(safe)).toBe(false);
        expect(terminalSafe(safe)).toBe(safe);
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves printable text, newlines and tabs unchanged", () => {
    const printable = fc.string({ unit: "grapheme" }).filter((value) => !hasUnsafe(value));
    fc.assert(
      fc.property(printable, (input) => {
        expect(terminalSafe(input)).toBe(input);
      }),
    );
    expect(terminalSafe("a\tb\nc — é 😀")).toBe("a\tb\nc — é 😀");
  });

  it("shows OSC 52, BEL, a screen clear, C1 and a bidi override as visible escapes", () => {
    expect(terminalSafe("\x1b]52;c;aGk=\x07\x1b[2J\x9b31m\r\u202eevil")).toBe(
      "\\x1b]52;c;aGk=\\x07\\x1b[2J\\x9b31m\\x0d\\u202eevil",
    );
  });
});

describe("jsonLine", () => {
  it("is exact JSON for the same value, on one line, with no control or bidi character raw", () => {
    fc.assert(
      fc.property(fc.jsonValue(), text, (value, extra) => {
        const wrapped = { value, extra, [extra]: extra };
        const line = jsonLine(wrapped);
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(wrapped)));
        expect(hasUnsafe(line)).toBe(false);
        expect(line).not.toContain("\n");
      }),
      { numRuns: 2000 },
    );
    expect(jsonLine({ t: "\x9b\u2028\x7f" })).toBe('{"t":"\\u009b\\u2028\\u007f"}');
  });
});
