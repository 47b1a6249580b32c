/**
 * The two neutralizers every untrusted value passes through before it sits inside a frame the
 * model reads (`[from "…"]` labels, `from="…"` fence headers). design §5 "Neutralizers".
 */

// Line breaks, control characters (Cc, which covers \t \n \v \f \r U+0085), format characters
// (Cf: zero-width joiners, bidi overrides, BOM …) and the two Unicode separators. Each becomes a space.
const BREAKS_AND_CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
// A lone surrogate is half a character; it becomes U+FFFD so the output is always well-formed.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const WHITESPACE_RUN = /\s+/gu;

/** Marks a value that {@link inlineUntrusted} cut short. */
const CUT_MARK = "…";

/**
 * Make an untrusted value safe to inline on one line inside a frame: every line break and every
 * other control or format character becomes a space, runs of whitespace collapse to one space,
 * the ends are trimmed, `<` becomes `‹` and `>` becomes `›` (so nothing can open or close a tag),
 * and at most `maxChars` code points are kept, a cut marked by `…` (so the result has at most
 * `maxChars + 1` code points and never half a surrogate pair).
 *
 * @throws RangeError when `maxChars` is not a non-negative integer.
 */
export function inlineUntrusted(value: string, maxChars: number): string {
  if (!Number.isInteger(maxChars) || maxChars < 0) {
    throw new RangeError(`inlineUntrusted: maxChars must be a non-negative integer, got ${maxChars}`);
  }
  const oneLine = value
    .replace(LONE_SURROGATE, "\uFFFD")
    .replace(BREAKS_AND_CONTROLS, " ")
    .replace(WHITESPACE_RUN, " ")
    .trim()
    .replaceAll("<", "‹")
    .replaceAll(">", "›");
  // Fast path: a string of at most maxChars UTF-16 units has at most maxChars code points.
  if (oneLine.length <= maxChars) return oneLine;
  const codePoints = Array.from(oneLine);
  if (codePoints.length <= maxChars) return oneLine;
  return codePoints.slice(0, maxChars).join("").trimEnd() + CUT_MARK;
}

/**
 * Escape a value for use inside a double-quoted attribute or label: `&` → `&amp;`, `"` → `&quot;`,
 * `<` → `&lt;`, `>` → `&gt;`. The escaping is reversible (`&` goes first).
 */
export function attrEscape(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
