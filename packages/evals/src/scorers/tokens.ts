/** `tokens`: the task used at most so many tokens (graded beyond). */
import type { Usage } from "@sema-agent/core";
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { choiceProblem, limitProblem, refuseProblems } from "./scorer-kit.ts";
import { withinLimit } from "./within-limit.ts";

/** The limit {@link tokens} scores against, and which tokens count. */
export interface TokensOptions {
  /** The most tokens that score 1. */
  max: number;
  /** `total` (default): input and output tokens; `input` or `output`: those alone. */
  include?: "total" | "input" | "output";
}

/** The tokens of `usage` that `include` counts. */
function counted(usage: Usage | undefined, include: "total" | "input" | "output"): number {
  if (usage === undefined) return 0;
  if (include === "input") return usage.inputTokens;
  if (include === "output") return usage.outputTokens;
  return usage.inputTokens + usage.outputTokens;
}

/**
 * A scorer named `tokens`: 1 when the task used at most `max` tokens, else `max / used`, graded
 * so twice the limit scores 0.5. It counts the task's own turns and what its sub-tasks used
 * (`childUsage`), as a budget's `maxTokens` does; `include` picks input and output tokens
 * (`total`, default), or one of them. It scores a task that did not complete too.
 *
 * @throws `ConfigError` when `max` is not a finite number of at least 0, or `include` is not one of its values.
 */
export function tokens(options: TokensOptions): Scorer {
  const max = options?.max;
  const include = options?.include ?? "total";
  refuseProblems("tokens", [
    ...limitProblem("max", max),
    ...choiceProblem("include", options?.include, ["total", "input", "output"]),
  ]);
  const kind = include === "total" ? "" : `${include} `;
  return defineScorer({
    name: "tokens",
    description: `At most ${max} ${kind}tokens`,
    score(input) {
      const own = counted(input.usage, include);
      const children = counted(input.childUsage, include);
      const verdict = withinLimit(own + children, max, (n) => `${n} ${kind}tokens`, "the task used");
      if (verdict.reason === undefined || children === 0) return verdict;
      return { ...verdict, reason: `${verdict.reason} (${children} of them by its sub-tasks)` };
    },
  });
}
