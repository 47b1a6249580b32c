/**
 * `includes`: the output contains the expected text, or each of several expected texts (the
 * value is then the fraction found, and the reason lists those missing).
 */
import type { JsonValue } from "@sema-agent/core";
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { shown } from "./json-values.ts";
import { booleanProblem, foldCase, noExpected, noOutput, refuseProblems } from "./scorer-kit.ts";

/** How {@link includes} looks for the expected texts. */
export interface IncludesOptions {
  /** Match case as written. Default `false`: `lisbon` is found in `LISBON`. */
  caseSensitive?: boolean;
}

/** At most this many missing texts are named in a reason (the rest are counted). */
const LISTED = 5;

/** The texts to look for: `expected` itself, or its items; undefined when it is neither. */
function needlesOf(expected: JsonValue): string[] | undefined {
  if (typeof expected === "string") return [expected];
  if (Array.isArray(expected) && expected.every((item) => typeof item === "string")) return expected as string[];
  return undefined;
}

/**
 * A scorer named `includes`: the case's `expected` text is in the output (1, else 0); for an
 * `expected` array of texts, the fraction of them found (1 when every one is, and 1 for an empty
 * array: nothing was missing). Case is ignored unless `caseSensitive`. No expected value, an
 * `expected` of another shape, or no output: 0, saying which.
 *
 * @throws `ConfigError` when `caseSensitive` is given and is not a boolean.
 */
export function includes(options: IncludesOptions = {}): Scorer {
  const { caseSensitive = false } = options;
  refuseProblems("includes", booleanProblem("caseSensitive", options.caseSensitive));
  const normal = (text: string) => (caseSensitive ? text : foldCase(text));
  return defineScorer({
    name: "includes",
    description: "The output contains the expected text(s)",
    score(input) {
      if (input.expected === undefined) return noExpected("a text or an array of texts");
      const needles = needlesOf(input.expected);
      if (needles === undefined)
        return {
          value: 0,
          reason: `expected must be a text or an array of texts to look for, not ${shown(input.expected)}`,
        };
      if (input.output === undefined) return noOutput(input);
      if (needles.length === 0) return { value: 1 };
      const text = normal(input.output);
      const missing = needles.filter((needle) => !text.includes(normal(needle)));
      if (missing.length === 0) return { value: 1 };
      if (typeof input.expected === "string")
        return { value: 0, reason: `the output does not contain ${shown(input.expected)}: ${shown(input.output)}` };
      const listed = missing.slice(0, LISTED).map((needle) => shown(needle));
      if (missing.length > LISTED) listed.push(`and ${missing.length - LISTED} more`);
      const found = needles.length - missing.length;
      return {
        value: found / needles.length,
        reason: `found ${found} of ${needles.length} expected texts; missing ${listed.join(", ")}`,
      };
    },
  });
}
