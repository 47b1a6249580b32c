/**
 * An experiment's results, read from the store: for each case its task's status, the verdicts
 * recorded for this experiment (`summary.scores`), turns, tokens, cost and time from its log;
 * and per scorer the mean over the cases it scored. The same whether the experiment just ran, is
 * half done, or ran months ago on another machine.
 */
import type { ModelPrice, Store } from "@sema-agent/core";
import { costUsd, priceOf } from "@sema-agent/core";
import { isSemaError, type TaskStatus, type Usage } from "@sema-agent/core/protocol";
import { scoreInputOf } from "@sema-agent/core/scoring";
import { type ExperimentRecord, loadExperimentRecord } from "./experiment-record.ts";

/** One case's outcome. */
export interface CaseResult {
  caseId: string;
  taskId: string;
  /** `not-started` when its task was never started (the experiment stopped before it). */
  status: TaskStatus | "not-started";
  /** The verdicts recorded for this experiment, by scorer. */
  scores: { [scorer: string]: { value: number; reason?: string } };
  /** Scorers that failed on this case (their error), from the run that just scored it. */
  scoreErrors?: { [scorer: string]: string };
  turns: number;
  usage: Usage;
  /** US dollars, when prices were given for every model its turns used. */
  costUsd?: number;
  durationMs: number;
  /** The run of the case failed before it could be scored. */
  error?: string;
}

/** An experiment's results. */
export interface ExperimentResult {
  experimentId: string;
  name: string;
  agent: string;
  model?: string;
  dataset: ExperimentRecord["dataset"];
  scorers: string[];
  cases: CaseResult[];
  /** Per scorer, the mean of its values over the cases it scored (`undefined` when none). */
  means: { [scorer: string]: number | undefined };
  totals: {
    cases: number;
    /** Cases whose task ended (completed, failed or cancelled). */
    finished: number;
    completed: number;
    turns: number;
    inputTokens: number;
    outputTokens: number;
    costUsd?: number;
    durationMs: number;
  };
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0 };

/** One case's result from its task (or `not-started`). */
export async function caseResultOf(
  store: Store,
  experimentId: string,
  entry: { caseId: string; taskId: string },
  prices?: Readonly<Record<string, ModelPrice>>,
): Promise<CaseResult> {
  let events: Awaited<ReturnType<Store["read"]>>;
  let scoresOf: NonNullable<Awaited<ReturnType<Store["getTask"]>>["summary"]["scores"]>;
  try {
    const record = await store.getTask(entry.taskId);
    scoresOf = record.summary.scores ?? {};
    events = await store.read(entry.taskId);
  } catch (error) {
    if (!isSemaError(error, "TaskNotFound")) throw error;
    return { ...entry, status: "not-started", scores: {}, turns: 0, usage: ZERO, durationMs: 0 };
  }
  const input = scoreInputOf(events);
  const scores: CaseResult["scores"] = {};
  for (const [scorer, score] of Object.entries(scoresOf))
    if (score.experiment === experimentId)
      scores[scorer] =
        score.reason === undefined ? { value: score.value } : { value: score.value, reason: score.reason };
  const out: CaseResult = {
    ...entry,
    status: input.status,
    scores,
    turns: input.turns,
    usage: input.usage,
    durationMs: input.durationMs,
  };
  if (prices !== undefined) {
    // Each turn at the price of the model that took it; a model without a price leaves no cost.
    let cost: number | undefined = 0;
    for (const [i, turn] of events.filter((e) => e.type === "model_turn").entries()) {
      const model = input.models[i];
      const price = model === undefined ? undefined : priceOf(model, prices);
      cost = price === undefined || cost === undefined ? undefined : cost + costUsd(turn.usage, price);
    }
    if (cost !== undefined) out.costUsd = cost;
  }
  return out;
}

/** The results of `cases` under `record`: means and totals. */
export function resultOf(record: ExperimentRecord, cases: CaseResult[]): ExperimentResult {
  const means: ExperimentResult["means"] = {};
  for (const scorer of record.scorers) {
    const values = cases.flatMap((c) => (c.scores[scorer] === undefined ? [] : [c.scores[scorer].value]));
    means[scorer] = values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
  }
  const totals: ExperimentResult["totals"] = {
    cases: cases.length,
    finished: cases.filter((c) => c.status === "completed" || c.status === "failed" || c.status === "cancelled").length,
    completed: cases.filter((c) => c.status === "completed").length,
    turns: cases.reduce((sum, c) => sum + c.turns, 0),
    inputTokens: cases.reduce((sum, c) => sum + c.usage.inputTokens, 0),
    outputTokens: cases.reduce((sum, c) => sum + c.usage.outputTokens, 0),
    durationMs: cases.reduce((sum, c) => sum + c.durationMs, 0),
  };
  if (cases.length > 0 && cases.every((c) => c.costUsd !== undefined))
    totals.costUsd = cases.reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
  const result: ExperimentResult = {
    experimentId: record.experimentId,
    name: record.name,
    agent: record.agent,
    dataset: record.dataset,
    scorers: record.scorers,
    cases,
    means,
    totals,
  };
  if (record.model !== undefined) result.model = record.model;
  return result;
}

/** An experiment's results as the store has them now; `RecordNotFound` for an id `principal` does not have. */
export async function loadExperiment(
  store: Store,
  principal: string,
  experimentId: string,
  options: { prices?: Readonly<Record<string, ModelPrice>> } = {},
): Promise<ExperimentResult> {
  const record = await loadExperimentRecord(store, principal, experimentId);
  const cases: CaseResult[] = [];
  for (const entry of record.cases) cases.push(await caseResultOf(store, experimentId, entry, options.prices));
  return resultOf(record, cases);
}
