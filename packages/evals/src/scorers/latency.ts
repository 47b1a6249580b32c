/** `latency`: the task took at most so long (graded beyond). */
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { limitProblem, refuseProblems } from "./scorer-kit.ts";
import { withinLimit } from "./within-limit.ts";

/** The limit {@link latency} scores against. */
export interface LatencyOptions {
  /** The longest time that scores 1, in milliseconds. */
  maxMs: number;
}

/**
 * A scorer named `latency`: 1 when the task took at most `maxMs` milliseconds from its creation
 * to its last event (`durationMs`, by the log's times: time parked waiting counts), else
 * `maxMs / durationMs`, graded so twice the limit scores 0.5. It scores a task that did not
 * complete too.
 *
 * @throws `ConfigError` when `maxMs` is not a finite number of at least 0.
 */
export function latency(options: LatencyOptions): Scorer {
  const maxMs = options?.maxMs;
  refuseProblems("latency", limitProblem("maxMs", maxMs));
  return defineScorer({
    name: "latency",
    description: `At most ${maxMs} ms`,
    score: (input) => withinLimit(input.durationMs, maxMs, (ms) => `${ms} ms`, "the task took"),
  });
}
