/**
 * `scoreTask`: run scorers over a task's log and record each verdict on the task as a
 * `task_scored` event (one append for all of them). A scorer that throws records nothing (the
 * result says why), so scoring again later tries it again; with `experiment`, a scorer whose
 * verdict for that experiment is recorded already is not run again (a judge is paid once).
 */

import type { Scorer } from "../../ports/scorer.ts";
import type { Store } from "../../ports/store.ts";
import { ConfigError, TaskNotFoundError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { appendToTask } from "../tasks/append-to-task.ts";
import { checkedScore } from "./define-scorer.ts";
import { scoreInputOf } from "./score-input.ts";

/** What to score against, and for whom. */
export interface ScoreTaskOptions {
  /** What the task was expected to give (a dataset case's `expected`). */
  expected?: JsonValue;
  /** The experiment whose case the task is: recorded with each verdict, and verdicts already recorded for it are kept. */
  experiment?: string;
  /** When given, a task of another principal is not found (`TaskNotFound`). */
  principal?: string;
  signal?: AbortSignal;
}

/** One scorer's outcome: its verdict, or why it has none. */
export interface ScorerResult {
  scorer: string;
  value?: number;
  reason?: string;
  /** The scorer failed (threw, or returned no valid value): nothing was recorded. */
  error?: string;
  /** The verdict was recorded before, for the same experiment, and the scorer was not run again. */
  recorded?: true;
}

/** Refuse two scorers of one name: results are keyed by it. */
export function checkScorers(scorers: readonly Scorer[], where: string): void {
  const seen = new Set<string>();
  const problems: { path: string; message: string }[] = [];
  scorers.forEach((scorer, i) => {
    if (seen.has(scorer.name)) problems.push({ path: `scorers[${i}]`, message: `repeats the name ${scorer.name}` });
    seen.add(scorer.name);
  });
  if (problems.length > 0) throw new ConfigError(where, problems);
}

/** Score `taskId` with `scorers`, record the verdicts, and return every scorer's outcome in order. */
export async function scoreTask(
  store: Store,
  taskId: string,
  scorers: readonly Scorer[],
  options: ScoreTaskOptions = {},
): Promise<ScorerResult[]> {
  checkScorers(scorers, "scoreTask");
  const record = await store.getTask(taskId);
  if (options.principal !== undefined && record.principal !== options.principal) throw new TaskNotFoundError(taskId);
  const events = await store.read(taskId);
  const input = scoreInputOf(events, options.expected);
  const signal = options.signal ?? new AbortController().signal;
  const kept = record.summary.scores ?? {};
  const results: ScorerResult[] = [];
  const verdicts: TaskEvent[] = [];
  for (const scorer of scorers) {
    const before = kept[scorer.name];
    if (options.experiment !== undefined && before?.experiment === options.experiment) {
      const result: ScorerResult = { scorer: scorer.name, value: before.value, recorded: true };
      if (before.reason !== undefined) result.reason = before.reason;
      results.push(result);
      continue;
    }
    try {
      const score = checkedScore(scorer.name, await scorer.score(input, { signal }));
      const event: TaskEvent = { type: "task_scored", v: 1, scorer: scorer.name, value: score.value };
      if (score.reason !== undefined) event.reason = score.reason;
      if (options.experiment !== undefined) event.experiment = options.experiment;
      verdicts.push(event);
      results.push({ scorer: scorer.name, ...score });
    } catch (error) {
      results.push({ scorer: scorer.name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  if (verdicts.length > 0) await appendToTask(store, taskId, () => verdicts);
  return results;
}
