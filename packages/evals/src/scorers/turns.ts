/** `turns`: the task took at most so many model turns (graded beyond). */
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { limitProblem, refuseProblems } from "./scorer-kit.ts";
import { withinLimit } from "./within-limit.ts";

/** The limit {@link turns} scores against. */
export interface TurnsOptions {
  /** The most model turns that score 1. */
  max: number;
}

/**
 * A scorer named `turns`: 1 when the task took at most `max` model turns of its own (`turns`;
 * its sub-tasks' are not counted), else `max / turns`, graded so twice the limit scores 0.5.
 * It scores a task that did not complete too: what it spent is known.
 *
 * @throws `ConfigError` when `max` is not a finite number of at least 0.
 */
export function turns(options: TurnsOptions): Scorer {
  const max = options?.max;
  refuseProblems("turns", limitProblem("max", max));
  return defineScorer({
    name: "turns",
    description: `At most ${max} model turns`,
    score: (input) => withinLimit(input.turns, max, (n) => `${n} model turn${n === 1 ? "" : "s"}`, "the task took"),
  });
}
