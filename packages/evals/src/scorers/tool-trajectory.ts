/**
 * `toolTrajectory`: the tool calls the task made against the calls expected of it, in the same
 * sequence (`exact`), as a subsequence (`in-order`), or as a multiset (`any-order`), each call
 * matched by name and by its input (as a subset, exactly, or not at all).
 */
import type { JsonValue } from "@sema-agent/core";
import { defineScorer, type ScoredToolCall, type Scorer } from "@sema-agent/core/scoring";
import { compareJson } from "./json-match.ts";
import { isJsonObject, jsonEqual, ownValue, shown } from "./json-values.ts";
import { choiceProblem, noExpected, type OptionProblem, refuseProblems } from "./scorer-kit.ts";

/** A call the task is expected to make: the tool's name and, when it matters, its input. */
export interface ExpectedToolCall {
  name: string;
  /** The input expected (how it is compared: `matchInput`); absent, any input matches. */
  input?: JsonValue;
}

/** Which calls {@link toolTrajectory} expects, and how it matches them. */
export interface ToolTrajectoryOptions {
  /** The calls expected. Default: the case's `expected`, which must then be `{ toolCalls: [...] }`. */
  calls?: readonly ExpectedToolCall[];
  /**
   * `in-order` (default): the expected calls are made in this order, other calls may come between.
   * `exact`: the calls made are exactly these, in this order. `any-order`: each expected call is
   * made (as often as it is listed), in any order.
   */
  order?: "exact" | "in-order" | "any-order";
  /**
   * `subset` (default): the call's input has every expected value (objects by key, arrays by
   * index, more is allowed). `exact`: the input is the expected one (keys in any order).
   * `name-only`: inputs are not compared.
   */
  matchInput?: "subset" | "exact" | "name-only";
}

/** At most this many calls made are named in a reason. */
const LISTED = 10;

/** A call for a reason: `lookup {"city":"Lisbon"}`, or the name alone when no input is expected. */
function callSaid(call: { name: string; input?: JsonValue }): string {
  return call.input === undefined ? call.name : `${call.name} ${shown(call.input)}`;
}

/** The names of the calls made, for a reason. */
function madeSaid(made: readonly ScoredToolCall[]): string {
  if (made.length === 0) return "no calls were made";
  const names = made.slice(0, LISTED).map((call) => call.name);
  if (made.length > LISTED) names.push(`and ${made.length - LISTED} more`);
  return `calls made: ${names.join(", ")}`;
}

/** The problems of an expected call list, each at `path[i]`. */
function callsProblems(calls: unknown, path: string): OptionProblem[] {
  if (!Array.isArray(calls)) return [{ path, message: "must be an array of { name, input? }" }];
  const problems: OptionProblem[] = [];
  calls.forEach((call: unknown, i) => {
    if (typeof call !== "object" || call === null || Array.isArray(call))
      problems.push({ path: `${path}[${i}]`, message: "must be an object { name, input? }" });
    else if (typeof (call as { name?: unknown }).name !== "string" || (call as { name: string }).name === "")
      problems.push({ path: `${path}[${i}].name`, message: "must be a tool's name" });
  });
  return problems;
}

/** The calls a case's `expected` lists (`{ toolCalls: [...] }`), or what is wrong with it. */
function expectedCalls(expected: JsonValue): ExpectedToolCall[] | string {
  const listed = isJsonObject(expected) ? ownValue(expected, "toolCalls") : undefined;
  if (listed === undefined)
    return `expected must be { toolCalls: [{ name, input? } …] } when the scorer has no calls, not ${shown(expected)}`;
  const problems = callsProblems(listed, "expected.toolCalls");
  if (problems.length > 0) return problems.map((p) => `${p.path} ${p.message}`).join("; ");
  return listed as unknown as ExpectedToolCall[];
}

/** Whether the call `made` is the call `wanted`, as `matchInput` says. */
type Matcher = (wanted: ExpectedToolCall, made: ScoredToolCall) => boolean;

function matcherOf(matchInput: "subset" | "exact" | "name-only"): Matcher {
  return (wanted, made) => {
    if (wanted.name !== made.name) return false;
    if (matchInput === "name-only" || wanted.input === undefined) return true;
    if (matchInput === "exact") return jsonEqual(wanted.input, made.input);
    return compareJson(wanted.input, made.input, false).mismatches.length === 0;
  };
}

/** A value, and what to say when it is below 1. */
interface Outcome {
  value: number;
  reason?: string;
}

/** `exact`: call i matches expected call i; the value counts positions out of the longer sequence. */
function exactOrder(wanted: readonly ExpectedToolCall[], made: readonly ScoredToolCall[], match: Matcher): Outcome {
  const length = Math.max(wanted.length, made.length);
  if (length === 0) return { value: 1 };
  let same = 0;
  let first: string | undefined;
  for (let i = 0; i < length; i += 1) {
    const want = wanted[i];
    const got = made[i];
    if (want !== undefined && got !== undefined && match(want, got)) {
      same += 1;
      continue;
    }
    if (first !== undefined) continue;
    if (got === undefined) first = `call ${i + 1} was never made: expected ${callSaid(want as ExpectedToolCall)}`;
    else if (want === undefined) first = `call ${i + 1} is not expected: got ${callSaid(got)}`;
    else first = `call ${i + 1}: expected ${callSaid(want)}, got ${callSaid(got)}`;
  }
  if (first === undefined) return { value: 1 };
  return { value: same / length, reason: `${same} of ${length} calls match in place; ${first}` };
}

/**
 * `in-order`: which expected calls are in a longest common subsequence of the expected calls and
 * those made. Where there is a choice, earlier expected calls are the ones kept.
 */
function inOrder(wanted: readonly ExpectedToolCall[], made: readonly ScoredToolCall[], match: Matcher): boolean[] {
  const rows = wanted.length + 1;
  const cols = made.length + 1;
  // lcs[i * cols + j]: the longest common subsequence of wanted[i..] and made[j..].
  const lcs = new Uint32Array(rows * cols);
  for (let i = wanted.length - 1; i >= 0; i -= 1)
    for (let j = made.length - 1; j >= 0; j -= 1)
      lcs[i * cols + j] = match(wanted[i] as ExpectedToolCall, made[j] as ScoredToolCall)
        ? (lcs[(i + 1) * cols + j + 1] as number) + 1
        : Math.max(lcs[(i + 1) * cols + j] as number, lcs[i * cols + j + 1] as number);
  const matched = wanted.map(() => false);
  let i = 0;
  let j = 0;
  while (i < wanted.length && j < made.length) {
    const here = lcs[i * cols + j] as number;
    if (
      match(wanted[i] as ExpectedToolCall, made[j] as ScoredToolCall) &&
      here === (lcs[(i + 1) * cols + j + 1] as number) + 1
    ) {
      matched[i] = true;
      i += 1;
      j += 1;
    } else if (here === (lcs[i * cols + j + 1] as number)) j += 1;
    else i += 1;
  }
  return matched;
}

/**
 * `any-order`: which expected calls are in a maximum matching of expected calls to distinct calls
 * made (Kuhn's augmenting paths, expected calls taken in order).
 */
function anyOrder(wanted: readonly ExpectedToolCall[], made: readonly ScoredToolCall[], match: Matcher): boolean[] {
  const fits = wanted.map((want) => made.flatMap((got, j) => (match(want, got) ? [j] : [])));
  const owner: (number | undefined)[] = made.map(() => undefined);
  const augment = (i: number, seen: boolean[]): boolean => {
    for (const j of fits[i] ?? []) {
      if (seen[j] === true) continue;
      seen[j] = true;
      const held = owner[j];
      if (held === undefined || augment(held, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  // A call matched once stays matched: an augmenting path only trades which call it holds.
  return wanted.map((_, i) => {
    const seen = made.map(() => false);
    return augment(i, seen);
  });
}

/**
 * A scorer named `tool-trajectory`: the calls expected (`calls`, else the case's `expected` as
 * `{ toolCalls: [{ name, input? } …] }`) against the calls the task made, in order, whatever
 * their results. A call matches an expected one of the same name whose `input`, when given, it
 * has (`matchInput`: `subset` default, `exact`, or `name-only`). The value:
 * - `in-order` (default): the most expected calls made in their order (a longest common
 *   subsequence; other calls may come between), as a fraction of the expected calls.
 * - `any-order`: the most expected calls that can each be paired with a distinct call made, as a
 *   fraction of the expected calls.
 * - `exact`: the positions where the call made matches the expected one, as a fraction of the
 *   longer of the two sequences (an extra call costs as a missing one does); 1 only for the
 *   same sequence.
 *
 * Expecting no calls scores 1, except in `exact` mode when calls were made. The reason names the
 * first expected call missing or out of order (or, `exact`, the first position that differs) and
 * the calls made. No expected calls at all, or an `expected` of another shape: 0, saying which.
 *
 * @throws `ConfigError` when `calls` is not a list of `{ name, input? }`, or `order` or
 * `matchInput` is not one of theirs.
 */
export function toolTrajectory(options: ToolTrajectoryOptions = {}): Scorer {
  const { calls, order = "in-order", matchInput = "subset" } = options;
  refuseProblems("toolTrajectory", [
    ...(calls === undefined ? [] : callsProblems(calls, "calls")),
    ...choiceProblem("order", options.order, ["exact", "in-order", "any-order"]),
    ...choiceProblem("matchInput", options.matchInput, ["subset", "exact", "name-only"]),
  ]);
  const fixed = calls?.map((call) => ({ ...call }));
  const match = matcherOf(matchInput);
  return defineScorer({
    name: "tool-trajectory",
    description: `The task made the expected tool calls (${order})`,
    score(input) {
      let wanted: ExpectedToolCall[];
      if (fixed !== undefined) wanted = fixed;
      else if (input.expected === undefined) return noExpected("{ toolCalls: [...] } (or give calls to the scorer)");
      else {
        const read = expectedCalls(input.expected);
        if (typeof read === "string") return { value: 0, reason: read };
        wanted = read;
      }
      const made = input.toolCalls;
      if (order === "exact") {
        const outcome = exactOrder(wanted, made, match);
        return outcome.reason === undefined ? outcome : { ...outcome, reason: `${outcome.reason}; ${madeSaid(made)}` };
      }
      if (wanted.length === 0) return { value: 1 };
      const matched = order === "in-order" ? inOrder(wanted, made, match) : anyOrder(wanted, made, match);
      const count = matched.filter(Boolean).length;
      const missed = matched.indexOf(false);
      if (missed < 0) return { value: 1 };
      const call = wanted[missed] as ExpectedToolCall;
      const ever = made.some((got) => match(call, got));
      const why =
        order === "in-order"
          ? ever
            ? "was made, but out of order"
            : "was never made"
          : ever
            ? "was made fewer times than expected"
            : "was never made";
      return {
        value: count / wanted.length,
        reason: `${count} of ${wanted.length} expected calls matched (${order}); expected call ${missed + 1}, ${callSaid(call)}, ${why}; ${madeSaid(made)}`,
      };
    },
  });
}
