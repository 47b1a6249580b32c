/**
 * `runExperiment`: every case of a dataset run as a task of the agent, scored, and the results
 * (docs/guide/evals.md#experiments). Durable: the experiment's record names each case's task
 * before any runs, so `runExperiment({ …, experimentId })` after a crash (or a stop) continues
 * where it was — a finished case is only scored (a verdict already recorded is not asked again),
 * an unfinished one runs on, a case not started is started — and no case's task starts twice.
 */
import type { Agent, HarnessOptions, ModelPrice, Store } from "@sema-agent/core";
import { ConfigError, InvalidInputError } from "@sema-agent/core/protocol";
import { checkScorers, type Scorer } from "@sema-agent/core/scoring";
import type { DatasetCase } from "../datasets/dataset-case.ts";
import type { Dataset } from "../datasets/parse-dataset.ts";
import { createExperiment, type ExperimentRecord, loadExperimentRecord } from "./experiment-record.ts";
import { type CaseResult, caseResultOf, type ExperimentResult, resultOf } from "./experiment-results.ts";
import { runCase } from "./run-case.ts";

/** What an experiment runs, and how. */
export interface RunExperimentOptions {
  store: Store;
  /** The agent under test. */
  agent: Agent;
  /** Its name, recorded on every task (default `default`). */
  agentName?: string;
  /** The model id recorded on every task (`provider:model-id`), for people and prices. */
  model?: string;
  /** The cases: parsed from a file (`parseDataset`) or loaded from the store (`loadDataset`). */
  dataset: Dataset & { name?: string; version?: number };
  scorers: readonly Scorer[];
  /** Whose tasks and records these are (default `local`). */
  principal?: string;
  /** A label for people. */
  name?: string;
  /** Resume this experiment instead of starting one: the same dataset, the same scorers. */
  experimentId?: string;
  /** Cases run at once (default 4, 1 to 256). */
  concurrency?: number;
  /** The rest of the harness: clock, lease holder, limits, sinks. */
  harness?: Omit<HarnessOptions, "store" | "agent">;
  /** Legs per case at most (default 20): a guard against a task that never settles. */
  maxLegs?: number;
  /** Prices per model, to cost each case. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Stops the experiment: running tasks park as shut down, to be continued by a resume. */
  signal?: AbortSignal;
  /**
   * Each case's task id is in this set while the run drives it (added before the task starts,
   * removed once it is scored): give the same set to the worker pool of this process
   * (`exclude` of `startWorkers`), so its workers leave these tasks to the run, whose legs send the
   * case's later inputs at their turns. Under one lease holder a claim of that pool would take a
   * case's live lease again and stop its leg. `serve` does this. Default: none.
   */
  driving?: Set<string>;
  /** Called with each case's result as it is scored (for progress). */
  onCase?: (result: CaseResult) => void;
}

function checkOptions(options: RunExperimentOptions): { concurrency: number; maxLegs: number } {
  const problems: { path: string; message: string }[] = [];
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    problems.push({ path: "concurrency", message: "is an integer from 1 to 256" });
  const maxLegs = options.maxLegs ?? 20;
  if (!Number.isInteger(maxLegs) || maxLegs < 1) problems.push({ path: "maxLegs", message: "is a positive integer" });
  if (options.scorers.length === 0) problems.push({ path: "scorers", message: "names at least one scorer" });
  if (options.dataset.cases.length === 0) problems.push({ path: "dataset", message: "has no cases" });
  if (problems.length > 0) throw new ConfigError("runExperiment", problems);
  checkScorers(options.scorers, "runExperiment");
  return { concurrency, maxLegs };
}

/** The record to run under: a new one, or the one resumed (checked against what is run now). */
async function recordFor(
  options: RunExperimentOptions,
  principal: string,
  agentName: string,
): Promise<ExperimentRecord> {
  const scorers = options.scorers.map((s) => s.name);
  if (options.experimentId === undefined) {
    const input: Parameters<typeof createExperiment>[1] = {
      principal,
      agent: agentName,
      dataset: options.dataset,
      scorers,
    };
    if (options.name !== undefined) input.name = options.name;
    if (options.model !== undefined) input.model = options.model;
    return createExperiment(options.store, input);
  }
  const record = await loadExperimentRecord(options.store, principal, options.experimentId);
  if (record.dataset.digest !== options.dataset.digest)
    throw new InvalidInputError(
      `experiment ${record.experimentId} ran another dataset (sha256 ${record.dataset.digest.slice(0, 12)}…, this one ${options.dataset.digest.slice(0, 12)}…): resume it with the same cases`,
    );
  if ([...scorers].sort().join("\n") !== [...record.scorers].sort().join("\n"))
    throw new InvalidInputError(
      `experiment ${record.experimentId} scores with ${record.scorers.join(", ")}: resume it with the same scorers`,
    );
  return record;
}

/** Run (or resume) an experiment and return its results; see the module comment. */
export async function runExperiment(options: RunExperimentOptions): Promise<ExperimentResult> {
  const { concurrency, maxLegs } = checkOptions(options);
  const principal = options.principal ?? "local";
  const agentName = options.agentName ?? "default";
  const record = await recordFor(options, principal, agentName);
  const byId = new Map<string, DatasetCase>(options.dataset.cases.map((c) => [c.id, c]));
  const run = {
    store: options.store,
    agent: options.agent,
    agentName,
    principal,
    experimentId: record.experimentId,
    scorers: options.scorers,
    harness: options.harness ?? {},
    maxLegs,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const results: CaseResult[] = new Array(record.cases.length);
  const stopped = () => options.signal?.aborted === true;
  let next = 0;
  async function worker(): Promise<void> {
    for (;;) {
      const index = next++;
      const entry = record.cases[index];
      if (entry === undefined || stopped()) return;
      const c = byId.get(entry.caseId);
      let result: CaseResult;
      try {
        if (c === undefined) throw new InvalidInputError(`case ${entry.caseId} is not in the dataset`);
        options.driving?.add(entry.taskId);
        const scored = await runCase(run, entry.taskId, c).finally(() => options.driving?.delete(entry.taskId));
        result = await caseResultOf(options.store, record.experimentId, entry, options.prices);
        const errors = scored.filter((s) => s.error !== undefined);
        if (errors.length > 0)
          result.scoreErrors = Object.fromEntries(errors.map((s) => [s.scorer, s.error as string]));
      } catch (error) {
        if (stopped()) return;
        result = await caseResultOf(options.store, record.experimentId, entry, options.prices);
        result.error = error instanceof Error ? error.message : String(error);
      }
      results[index] = result;
      options.onCase?.(result);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, record.cases.length) }, worker));
  // A stopped experiment reports every case as its task stands.
  for (const [index, entry] of record.cases.entries())
    results[index] ??= await caseResultOf(options.store, record.experimentId, entry, options.prices);
  return resultOf(record, results);
}
