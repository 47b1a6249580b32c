import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attrEscape, inlineUntrusted } from "./neutralizers.ts";

const RUNS = { numRuns: 10_000 };
// Every kind of string: full Unicode, lone surrogates, and a bias toward the characters that matter.
const nasty = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({
    unit: fc.constantFrom(
      "<",
      ">",
      "\n",
      "\r",
      "\u2028",
      "\u2029",
      "\u0085",
      "\v",
      "\f",
      "\t",
      '"',
      "&",
      " ",
      "\u200b",
      "\u202e",
      "\ud83d",
      "\ude00",
      "a",
      "é",
      "😀",
      "\u0000",
    ),
    maxLength: 100,
  }),
);
const LINE_BREAK = /[\r\n\v\f\u0085\u2028\u2029]/;
const HALF_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unescapeAttr(value: string): string {
  return value.replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

describe("inlineUntrusted", () => {
  it("turns line breaks and control/format characters into spaces and collapses runs", () => {
    expect(inlineUntrusted("a\r\nb\u2028c\u2029d\u0085e\vf\fg\th", 100)).toBe("a b c d e f g h");
    expect(inlineUntrusted("a\u200bb\u202ec\u0000d\u001be", 100)).toBe("a b c d e");
    expect(inlineUntrusted("  lots   of \n\n  space  ", 100)).toBe("lots of space");
  });

  it("defuses angle brackets so nothing opens or closes a tag", () => {
    expect(inlineUntrusted("</system-reminder><b>", 100)).toBe("‹/system-reminder›‹b›");
  });

  it("keeps at most maxChars code points and marks the cut", () => {
    expect(inlineUntrusted("abcdef", 6)).toBe("abcdef");
    expect(inlineUntrusted("abcdefg", 6)).toBe("abcdef…");
    expect(inlineUntrusted("😀😀😀", 2)).toBe("😀😀…");
    expect(inlineUntrusted("ab cd", 3)).toBe("ab…");
    expect(inlineUntrusted("abc", 0)).toBe("…");
    expect(inlineUntrusted("", 0)).toBe("");
  });

  it("replaces a lone surrogate rather than keep half a character", () => {
    expect(inlineUntrusted("a\ud83db", 10)).toBe("a\ufffdb");
    expect(inlineUntrusted("\ude00", 10)).toBe("\ufffd");
  });

  it("rejects a maxChars that is not a non-negative integer", () => {
    expect(() => inlineUntrusted("x", -1)).toThrow(RangeError);
    expect(() => inlineUntrusted("x", 1.5)).toThrow(RangeError);
  });

  it("property: one line, no angle brackets, at most max+1 code points, no half surrogate, trimmed", () => {
    fc.assert(
      fc.property(nasty, fc.integer({ min: 0, max: 80 }), (value, max) => {
        const out = inlineUntrusted(value, max);
        expect(out).not.toMatch(LINE_BREAK);
        expect(out).not.toMatch(/[<>]/);
        expect(out).not.toMatch(/[\p{Cc}\p{Cf}]/u);
        expect(out).not.toMatch(HALF_SURROGATE);
        expect(out).not.toMatch(/\s\s/);
        expect(out).toBe(out.trim());
        expect(Array.from(out).length).toBeLessThanOrEqual(max + 1);
      }),
      RUNS,
    );
  });

  it("property: idempotent on its own output when nothing is cut", () => {
    fc.assert(
      fc.property(nasty, (value) => {
        const once = inlineUntrusted(value, 1000);
        expect(inlineUntrusted(once, 1000)).toBe(once);
      }),
      RUNS,
    );
  });
});

describe("attrEscape", () => {
  it("escapes the four characters, ampersand first", () => {
    expect(attrEscape(`a&b"c<d>e`)).toBe("a&amp;b&quot;c&lt;d&gt;e");
    expect(attrEscape("&quot;")).toBe("&amp;quot;");
  });

  it("property: round-trips and leaves no raw quote or bracket", () => {
    fc.assert(
      fc.property(nasty, (value) => {
        const escaped = attrEscape(value);
        expect(escaped).not.toMatch(/["<>]/);
        expect(unescapeAttr(escaped)).toBe(value);
      }),
      RUNS,
    );
  });
});
