/**
 * `exactMatch`: the answer is the expected one. A text expected is compared with the output's
 * text (trimmed and case-folded as asked); any other JSON expected (an object, a number …) with
 * the output read as JSON, by deep equality that ignores key order.
 */
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { clip, jsonEqual, shown } from "./json-values.ts";
import { booleanProblem, foldCase, noExpected, noOutput, refuseProblems } from "./scorer-kit.ts";

/** How {@link exactMatch} compares texts. */
export interface ExactMatchOptions {
  /** Ignore whitespace at both ends of the output and the expected text. Default `true`. */
  trim?: boolean;
  /** Compare case as written. Default `true`; `false` folds case (`Lisbon` matches `LISBON`). */
  caseSensitive?: boolean;
}

/** The first index where `a` and `b` differ. */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

/** How much of a text is shown before the place it differs. */
const LEAD_CHARS = 40;

/** `text` around index `at`, quoted, with `…` where it was cut. */
function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - LEAD_CHARS);
  return `${start > 0 ? "…" : ""}${clip(JSON.stringify(text.slice(start)))}`;
}

/**
 * A scorer named `exact-match`: 1 when the output is the case's `expected`, else 0. A string
 * `expected` is compared with the output text, after trimming both (`trim`, default true) and
 * folding case (`caseSensitive: false`); any other JSON `expected` is compared with the output
 * parsed as JSON (`outputJson`), by deep equality with object keys in any order. No expected
 * value, no output, or an output that is not JSON when JSON is expected: 0, saying which.
 *
 * @throws `ConfigError` when `trim` or `caseSensitive` is given and is not a boolean.
 */
export function exactMatch(options: ExactMatchOptions = {}): Scorer {
  const { trim = true, caseSensitive = true } = options;
  refuseProblems("exactMatch", [
    ...booleanProblem("trim", options.trim),
    ...booleanProblem("caseSensitive", options.caseSensitive),
  ]);
  const trimmed = (text: string) => (trim ? text.trim() : text);
  return defineScorer({
    name: "exact-match",
    description: "The output is exactly the expected answer",
    score(input) {
      const { expected } = input;
      if (expected === undefined) return noExpected("the exact answer");
      if (input.output === undefined) return noOutput(input);
      if (typeof expected === "string") {
        const got = trimmed(input.output);
        const want = trimmed(expected);
        if (caseSensitive ? got === want : foldCase(got) === foldCase(want)) return { value: 1 };
        // Where they part, in the texts as written (folding may change a text's length).
        const at = caseSensitive ? firstDifference(got, want) : 0;
        const where = caseSensitive ? ` (they differ from character ${at + 1})` : " (ignoring case)";
        return { value: 0, reason: `expected ${excerpt(want, at)}, got ${excerpt(got, at)}${where}` };
      }
      if (input.outputJson === undefined)
        return {
          value: 0,
          reason: `expected the JSON ${shown(expected)}, got text that is not JSON: ${shown(input.output)}`,
        };
      if (jsonEqual(input.outputJson, expected)) return { value: 1 };
      return { value: 0, reason: `expected ${shown(expected)}, got ${shown(input.outputJson)}` };
    },
  });
}
