/**
 * `@sema-agent/core/scoring`: the contract of a verdict on a task. `Scorer` (a name and a
 * function from what the task did to a value in [0, 1] with a reason), `defineScorer`, what a
 * scorer reads of a task (`scoreInputOf`, from its log alone), and `scoreTask`, which records each
 * verdict on the task as a `task_scored` event. The built-in scorers, datasets and experiments
 * are `@sema-agent/evals`. docs/guide/evals.md.
 *
 * @module @sema-agent/core/scoring
 */

export { checkedScore, defineScorer, isScoreValue, type ScorerDefinition } from "../harness/scoring/define-scorer.ts";
export { scoreInputOf } from "../harness/scoring/score-input.ts";
export { checkScorers, type ScorerResult, type ScoreTaskOptions, scoreTask } from "../harness/scoring/score-task.ts";
export type { Score, ScoreContext, ScoredToolCall, ScoreInput, Scorer } from "../ports/scorer.ts";
