/**
 * Scorers: a verdict on a finished task, a number in [0, 1] with a reason (docs/guide/evals.md).
 * Define one with `defineScorer`; `@sema-agent/evals` has the built-in ones (exact match,
 * includes, JSON match, tool trajectory, an LLM judge …). A scorer reads the task as its log
 * recorded it, so it scores a task of an experiment, an old task, or an imported one alike.
 */
import type { JsonValue } from "../protocol/json.ts";
import type { StoredEvent } from "../protocol/task-event.ts";
import type { TaskStatus } from "../protocol/task-summary.ts";
import type { Usage } from "../protocol/usage.ts";

/** A tool call the task's model made, with how it ended. */
export interface ScoredToolCall {
  name: string;
  input: JsonValue;
  /** `ok`, `error`, `denied`, `interrupted` …: the result's status; absent when it never got one. */
  status?: string;
}

/** What a scorer is given: what the task was asked and expected to give, and how it ran. */
export interface ScoreInput {
  /** The task's objective (for a dataset's case, its `input`). */
  objective: string;
  /** What the case expects, when it says: a string, or JSON for a structured answer. */
  expected?: JsonValue;
  /** The final answer, when the task completed. */
  output?: string;
  /** The final answer as JSON, when it is a JSON text (a structured answer always is). */
  outputJson?: JsonValue;
  status: TaskStatus;
  /** Every call the model made, in order. */
  toolCalls: readonly ScoredToolCall[];
  /** Model turns taken. */
  turns: number;
  /** Tokens of the task's own turns (its children's are in `childUsage`). */
  usage: Usage;
  /** What its children used, when it had any. */
  childUsage?: Usage;
  /** The model of each turn, in order: the one it names, else the task's (`undefined` when neither says). */
  models: readonly (string | undefined)[];
  /** From the task's creation to its last event, by the log's times. */
  durationMs: number;
  /** The task's metadata (`task_created`). */
  metadata?: { [key: string]: JsonValue };
  /** The whole log, for whatever else a scorer reads. */
  events: readonly StoredEvent[];
}

/** A verdict: `value` from 0 (worst) to 1 (best), and why. */
export interface Score {
  value: number;
  reason?: string;
}

/** What a scorer's call may use besides the input. */
export interface ScoreContext {
  /** Aborted when the run that scores is stopped: stop promptly. */
  signal: AbortSignal;
}

/**
 * A named way to score a task. `name` is what results are keyed by (`task_scored.scorer`): a
 * letter, then letters, digits, `_ . : -`, at most 64 characters.
 */
export interface Scorer {
  readonly name: string;
  /** One line on what it measures, for tables and docs. */
  readonly description?: string;
  /** The verdict on the task `input` describes; it may call out (a judge), stopping on `context.signal`. */
  score(input: ScoreInput, context: ScoreContext): Score | Promise<Score>;
}
