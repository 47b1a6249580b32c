/**
 * What every built-in scorer does alike: the verdict when what it needs is missing (no output, no
 * expected value), the checks of its options (a `ConfigError` where the scorer is defined, naming
 * each problem), and case folding for the text comparisons.
 */
import { ConfigError } from "@sema-agent/core/protocol";
import type { Score, ScoreInput } from "@sema-agent/core/scoring";

/** The verdict when a scorer needs the task's final answer and it has none. */
export function noOutput(input: ScoreInput): Score {
  return { value: 0, reason: `the task has no output to score (status ${input.status})` };
}

/** The verdict when a scorer needs the case's `expected` and none was given. */
export function noExpected(what: string): Score {
  return { value: 0, reason: `no expected value to compare with: pass ${what} as the case's expected` };
}

/** A problem with a scorer's options, for a `ConfigError`. */
export interface OptionProblem {
  path: string;
  message: string;
}

/** Throw `ConfigError` naming every problem, when there are any. */
export function refuseProblems(where: string, problems: readonly OptionProblem[]): void {
  if (problems.length > 0) throw new ConfigError(where, problems);
}

/** A problem when `value` is given and is not a boolean. */
export function booleanProblem(path: string, value: unknown): OptionProblem[] {
  return value === undefined || typeof value === "boolean" ? [] : [{ path, message: "must be a boolean" }];
}

/** A problem when `value` is given and is not one of `allowed`. */
export function choiceProblem(path: string, value: unknown, allowed: readonly string[]): OptionProblem[] {
  return value === undefined || (typeof value === "string" && allowed.includes(value))
    ? []
    : [{ path, message: `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}` }];
}

/** A problem when `value` is not a finite number of at least 0. */
export function limitProblem(path: string, value: unknown): OptionProblem[] {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? []
    : [{ path, message: "must be a finite number of at least 0" }];
}

/**
 * `text` with case differences removed: lower case, then upper case. Upper casing last merges the
 * forms lower casing picks by context (Greek final sigma), so folding a text folds each of its
 * parts alike and a needle found in a text stays found after both are folded.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().toUpperCase();
}
