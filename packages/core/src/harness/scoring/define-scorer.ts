/**
 * `defineScorer`: checks a scorer's definition where it is given (a `ConfigError` names the
 * problem), and checks every verdict it gives: a value outside [0, 1], not a number, or a reason
 * that is not text is the scorer's bug, reported as such rather than recorded.
 */
import type { Score, ScoreContext, ScoreInput, Scorer } from "../../ports/scorer.ts";
import { ConfigError, InvalidInputError } from "../../protocol/errors.ts";
import { scorerNameSchema } from "../../protocol/task-event.ts";

/** What `defineScorer` takes: a name, a line on what it measures, and the scoring function. */
export interface ScorerDefinition {
  name: string;
  description?: string;
  /** The verdict: a value in [0, 1] (a number alone, or `{ value, reason }`), at once or as a promise. */
  score(input: ScoreInput, context: ScoreContext): Score | Promise<Score> | number | Promise<number>;
}

/** Whether `value` is a verdict a task may record: a finite number from 0 to 1. */
export function isScoreValue(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1;
}

/**
 * A scorer from its definition. `score` may return a number (the value) or `{ value, reason }`.
 * Throws `ConfigError` for a name of the wrong form or a `score` that is not a function.
 */
export function defineScorer(definition: ScorerDefinition): Scorer {
  const problems: { path: string; message: string }[] = [];
  const name = scorerNameSchema.safeParse(definition.name);
  if (!name.success) problems.push({ path: "name", message: name.error.issues[0]?.message ?? "is not a name" });
  if (typeof definition.score !== "function") problems.push({ path: "score", message: "must be a function" });
  if (definition.description !== undefined && typeof definition.description !== "string")
    problems.push({ path: "description", message: "must be a string" });
  if (problems.length > 0) throw new ConfigError("defineScorer", problems);
  const scorer: Scorer = {
    name: definition.name,
    async score(input, context) {
      return checkedScore(definition.name, await definition.score(input, context));
    },
  };
  if (definition.description !== undefined) return { ...scorer, description: definition.description };
  return scorer;
}

/** `given` as a verdict, or `InvalidInput` saying what the scorer returned. */
export function checkedScore(scorer: string, given: unknown): Score {
  const score = typeof given === "number" ? { value: given } : given;
  if (typeof score !== "object" || score === null || !("value" in score))
    throw new InvalidInputError(`scorer ${scorer} returned no value`, { scorer });
  const { value, reason } = score as { value: unknown; reason?: unknown };
  if (!isScoreValue(value))
    throw new InvalidInputError(`scorer ${scorer} returned ${String(value)}: a score is a number from 0 to 1`, {
      scorer,
    });
  if (reason !== undefined && typeof reason !== "string")
    throw new InvalidInputError(`scorer ${scorer} returned a reason that is not text`, { scorer });
  return reason === undefined ? { value } : { value, reason };
}
