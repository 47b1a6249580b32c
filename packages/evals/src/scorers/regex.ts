/**
 * `regex`: the output matches a regular expression, given with the scorer or as the case's
 * `expected`. Only the output's first 10,000 characters are tested.
 */
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { clip, shown } from "./json-values.ts";
import { noExpected, noOutput, type OptionProblem, refuseProblems } from "./scorer-kit.ts";

/**
 * How much of the output is tested, in UTF-16 code units: a pattern that backtracks
 * polynomially (`(a|a)*b`, `.*x.*y`) stays within a bounded time on any output. It cannot tame
 * a pattern that backtracks exponentially (`(a+)+$`): keep patterns simple.
 */
const REGEX_INPUT_CHARS = 10_000;

/** What {@link regex} matches the output against. */
export interface RegexOptions {
  /** The pattern (JavaScript syntax). Default: the case's `expected`, which must then be a text. */
  pattern?: string;
  /** The flags, `i`, `m`, `s`, `u` …, for the pattern given here or in `expected`. */
  flags?: string;
}

/**
 * `text` as a pattern that matches exactly that text: every character with a meaning in a
 * pattern (`\ ^ $ . * + ? ( ) [ ] { } |` and `/`) is escaped, and nothing else, so the result is
 * valid with or without the `u` flag.
 */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The compiled pattern, or what is wrong with it. */
function compiled(pattern: string, flags: string | undefined): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A scorer named `regex`: 1 when the output matches `pattern` (else the case's `expected`, a
 * pattern text) with `flags`, else 0. Only the output's first 10,000 characters are tested, so a
 * pattern that backtracks polynomially ends in bounded time whatever the model wrote (one that
 * backtracks exponentially, such as `(a+)+$`, is not tamed by any cap: keep patterns simple).
 * No pattern, an `expected` pattern that does not compile, or no output: 0, saying which. Use
 * {@link escapeRegex} to look for a literal text.
 *
 * @throws `ConfigError` when `pattern` or `flags` is not a string or does not compile.
 */
export function regex(options: RegexOptions = {}): Scorer {
  const { pattern, flags } = options;
  const problems: OptionProblem[] = [];
  if (pattern !== undefined && typeof pattern !== "string")
    problems.push({ path: "pattern", message: "must be a string" });
  if (flags !== undefined && typeof flags !== "string") problems.push({ path: "flags", message: "must be a string" });
  if (problems.length === 0) {
    const check = compiled(pattern ?? "", flags);
    if (typeof check === "string") problems.push({ path: pattern === undefined ? "flags" : "pattern", message: check });
  }
  refuseProblems("regex", problems);
  return defineScorer({
    name: "regex",
    description: "The output matches a regular expression",
    score(input) {
      const source = pattern ?? input.expected;
      if (source === undefined) return noExpected("a pattern (or give one with the scorer)");
      if (typeof source !== "string")
        return { value: 0, reason: `expected must be a pattern text when the scorer has none, not ${shown(source)}` };
      // Fresh each time: a `g` or `y` flag makes a pattern's test depend on its last one.
      const expression = compiled(source, flags);
      if (typeof expression === "string")
        return { value: 0, reason: `the expected pattern ${shown(source)} does not compile: ${expression}` };
      if (input.output === undefined) return noOutput(input);
      const tested = input.output.slice(0, REGEX_INPUT_CHARS);
      if (expression.test(tested)) return { value: 1 };
      const cut =
        input.output.length > REGEX_INPUT_CHARS
          ? ` (only its first ${REGEX_INPUT_CHARS} of ${input.output.length} characters were tested)`
          : "";
      return { value: 0, reason: `the output does not match ${clip(String(expression))}${cut}: ${shown(tested)}` };
    },
  });
}
