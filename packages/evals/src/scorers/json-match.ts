/**
 * `jsonMatch`: how much of the expected JSON the output's JSON has, value by value. Each leaf of
 * the expected value (a text, number, boolean, null, or an empty object or array) is one check;
 * in `exact` mode each key or item of the output that the expected value lacks is one more.
 */
import type { JsonValue } from "@sema-agent/core";
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { childPath, isJsonObject, jsonEqual, ownValue, shown } from "./json-values.ts";
import { choiceProblem, noExpected, noOutput, refuseProblems } from "./scorer-kit.ts";

/** How {@link jsonMatch} treats what the output has beyond the expected value. */
export interface JsonMatchOptions {
  /**
   * `subset` (default): only the expected values are checked; the output may have more.
   * `exact`: every key or array item of the output that the expected value lacks counts as a mismatch too.
   */
  mode?: "exact" | "subset";
}

/** At most this many mismatches are named in a reason (the rest are counted). */
const LISTED = 5;

/** One place where the output differs: a wrong or missing value, or (exact mode) one too many. */
export interface Mismatch {
  path: string;
  expected?: JsonValue;
  actual?: JsonValue;
  extra?: true;
}

/** The checks so far: how many, how many passed, and where the output differs. */
export interface Tally {
  checks: number;
  matched: number;
  mismatches: Mismatch[];
}

/** The checks of an expected value: one per leaf, an empty object or array being a leaf. */
function leafCount(value: JsonValue): number {
  const children = Array.isArray(value) ? value : isJsonObject(value) ? Object.values(value) : undefined;
  if (children === undefined || children.length === 0) return 1;
  return children.reduce<number>((sum, child) => sum + leafCount(child), 0);
}

/** Compare `actual` (undefined: absent) with `expected` at `path`, adding to `tally`. */
function walk(expected: JsonValue, actual: JsonValue | undefined, path: string, exact: boolean, tally: Tally): void {
  const container = Array.isArray(expected) ? "array" : isJsonObject(expected) ? "object" : undefined;
  if (container === undefined) {
    tally.checks += 1;
    if (actual !== undefined && jsonEqual(expected, actual)) tally.matched += 1;
    else tally.mismatches.push(actual === undefined ? { path, expected } : { path, expected, actual });
    return;
  }
  const sameKind = container === "array" ? Array.isArray(actual) : isJsonObject(actual);
  if (!sameKind || actual === undefined) {
    // The whole expected subtree is missing: its leaves fail, and one mismatch says why.
    tally.checks += leafCount(expected);
    tally.mismatches.push(actual === undefined ? { path, expected } : { path, expected, actual });
    return;
  }
  const entries: [string | number, JsonValue][] = Array.isArray(expected)
    ? expected.map((item, i) => [i, item])
    : Object.entries(expected as { [key: string]: JsonValue });
  if (entries.length === 0) {
    tally.checks += 1;
    tally.matched += 1;
  }
  for (const [key, item] of entries) {
    const there =
      typeof key === "number" ? (actual as JsonValue[])[key] : ownValue(actual as { [key: string]: JsonValue }, key);
    walk(item, there, childPath(path, key), exact, tally);
  }
  if (!exact) return;
  if (Array.isArray(actual)) {
    for (let i = entries.length; i < actual.length; i += 1) {
      tally.checks += 1;
      tally.mismatches.push({ path: childPath(path, i), actual: actual[i] as JsonValue, extra: true });
    }
  } else if (isJsonObject(actual) && isJsonObject(expected)) {
    for (const [key, value] of Object.entries(actual)) {
      if (Object.hasOwn(expected, key)) continue;
      tally.checks += 1;
      tally.mismatches.push({ path: childPath(path, key), actual: value, extra: true });
    }
  }
}

/** One mismatch, for a reason. */
function said(mismatch: Mismatch): string {
  if (mismatch.extra === true) return `${mismatch.path} is not expected (got ${shown(mismatch.actual)})`;
  if (mismatch.actual === undefined) return `${mismatch.path} is missing (expected ${shown(mismatch.expected)})`;
  return `${mismatch.path} expected ${shown(mismatch.expected)}, got ${shown(mismatch.actual)}`;
}

/**
 * Compare `actual` with `expected`: the checks made, those passed and the mismatches found, in
 * the expected value's order (then the extras). What {@link jsonMatch} scores, and what
 * `toolTrajectory` means by an input that has the expected one as a subset.
 */
export function compareJson(expected: JsonValue, actual: JsonValue, exact: boolean): Tally {
  const tally: Tally = { checks: 0, matched: 0, mismatches: [] };
  walk(expected, actual, "$", exact, tally);
  return tally;
}

/**
 * A scorer named `json-match`: the output's JSON (`outputJson`) against the case's `expected`
 * JSON. The value is the fraction of checks that pass: one check per leaf of `expected` (a
 * primitive, or an empty object or array, which the output must have as the same kind), arrays
 * compared by index; in `exact` mode, every key or array item of the output that `expected` lacks
 * is one more check, failed. 1 when all pass. The reason names the first five mismatched paths
 * (`$.items[0].price`) with the expected and the actual value. No expected value, no output, or
 * an output that is not JSON: 0, saying which.
 *
 * @throws `ConfigError` when `mode` is not `exact` or `subset`.
 */
export function jsonMatch(options: JsonMatchOptions = {}): Scorer {
  const { mode = "subset" } = options;
  refuseProblems("jsonMatch", choiceProblem("mode", options.mode, ["exact", "subset"]));
  return defineScorer({
    name: "json-match",
    description:
      mode === "exact" ? "The output's JSON is the expected JSON" : "The output's JSON has the expected values",
    score(input) {
      if (input.expected === undefined) return noExpected("the JSON");
      if (input.output === undefined) return noOutput(input);
      if (input.outputJson === undefined)
        return {
          value: 0,
          reason: `the output is not JSON: ${shown(input.output)}; expected ${shown(input.expected)}`,
        };
      const tally = compareJson(input.expected, input.outputJson, mode === "exact");
      if (tally.mismatches.length === 0) return { value: 1 };
      const listed = tally.mismatches.slice(0, LISTED).map(said);
      if (tally.mismatches.length > LISTED) listed.push(`and ${tally.mismatches.length - LISTED} more`);
      return {
        value: tally.matched / tally.checks,
        reason: `${tally.matched} of ${tally.checks} checks pass: ${listed.join("; ")}`,
      };
    },
  });
}
