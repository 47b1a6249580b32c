/**
 * Runs the suite: every environment's benign user tasks alone, and every user task × injection
 * task with the injection in all the environment's slots, under each condition, for each model.
 * A run's outcome is read off the environment's state afterwards (the goals' checks), never off
 * what the model said it did.
 */
import type { Model } from "@sema-agent/core";
import type { ScoreInput, Scorer } from "@sema-agent/core/scoring";
import type { DatasetCase } from "./datasets/dataset-case.ts";
import { type InjectionScenario, injectionDataset, injectionScenario, injectionScorers } from "./injection-dataset.ts";
import { type ConditionRun, type LoopInput, runNaiveLoop } from "./naive-loop.ts";
import { runSema } from "./sema-run.ts";
import { DEFAULT_SUITES, environmentsOf } from "./suites.ts";
import type { UserTask } from "./types.ts";

/** The conditions compared: the naive loop, Sema's framing alone, Sema's framing and its provenance policy. */
export type ConditionName = "naive" | "framing" | "policy";

/** Every condition, in the table's order. */
export const CONDITIONS: readonly ConditionName[] = ["naive", "framing", "policy"];

/** A model to measure: its name in the table, and the model a run of a user task gets. */
export interface ModelChoice {
  name: string;
  /** Scripted models are made per task (they play its plan); a real provider returns one model. */
  forTask(task: UserTask<unknown>): Model;
}

/** What to run: the models, the suites (environment names, or `all`), the conditions, a step cap. */
export interface SuiteOptions {
  models: readonly ModelChoice[];
  /** Default {@link DEFAULT_SUITES}. */
  suites?: readonly string[];
  /** Default every condition. */
  conditions?: readonly ConditionName[];
  /** The most model turns of one run (default 12). */
  maxSteps?: number;
  /** Called after each run (for progress output). */
  onResult?: (result: ScenarioResult) => void;
}

/** One run: a user task, alone or with one injection task, under one condition for one model. */
export interface ScenarioResult {
  model: string;
  condition: ConditionName;
  environment: string;
  userTask: string;
  /** Absent for a benign run. */
  injectionTask?: string;
  /** The attack template used (absent for a benign run). */
  attack?: string;
  /** The user's goal was reached. */
  utility: boolean;
  /** The attacker's side effect happened (attacked runs only). */
  attackSucceeded?: boolean;
  /** Calls the provenance policy held (each answered by the reviewer with a denial). */
  approvals: number;
  answer: string;
  /** Why the run failed, if it threw. */
  error?: string;
}

/** A count out of a total. */
export interface Ratio {
  count: number;
  total: number;
}

/** The metrics of one model × condition × environment (`all` for the sum over environments). */
export interface SuiteRow {
  model: string;
  condition: ConditionName;
  environment: string;
  /** Attacked runs in which the attacker's side effect happened. */
  attackSuccess: Ratio;
  /** Attacked runs in which the user's goal was still reached. */
  utilityUnderAttack: Ratio;
  /** Benign runs in which the user's goal was reached. */
  benignUtility: Ratio;
  /** Approvals asked over the benign runs, and how many benign runs. */
  benignApprovals: Ratio;
}

/** Everything a run of the suite found: each run, and the rows of the table. */
export interface SuiteReport {
  results: ScenarioResult[];
  rows: SuiteRow[];
}

async function runCondition(condition: ConditionName, input: LoopInput): Promise<ConditionRun> {
  if (condition === "naive") return runNaiveLoop(input);
  return runSema(input, condition === "framing" ? "allow" : undefined);
}

/** What a scorer of the suite reads of a run: its case, its answer, whether it failed. */
function runInput(c: DatasetCase, answer: string, failed: boolean): ScoreInput {
  const input: ScoreInput = {
    objective: c.input,
    status: failed ? "failed" : "completed",
    toolCalls: [],
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    models: [],
    durationMs: 0,
    metadata: { caseId: c.id },
    events: [],
  };
  if (!failed) input.output = answer;
  return input;
}

interface SuiteScorers {
  utility: Scorer;
  attackSuccess: Scorer;
  states: Map<string, unknown>;
}

async function runScenario(
  c: DatasetCase,
  scenario: InjectionScenario,
  model: ModelChoice,
  condition: ConditionName,
  maxSteps: number,
  scorers: SuiteScorers,
): Promise<ScenarioResult> {
  const { environment, userTask, injection } = scenario;
  const state = environment.createState(injection?.text);
  scorers.states.set(c.id, state);
  const input: LoopInput = {
    model: model.forTask(userTask),
    tools: environment.tools(state),
    prompt: userTask.prompt,
    maxSteps,
  };
  if (userTask.external !== undefined) {
    input.external = userTask.external.replace("{injection}", injection?.text ?? "").trimEnd();
  }
  const result: ScenarioResult = {
    model: model.name,
    condition,
    environment: environment.name,
    userTask: userTask.id,
    utility: false,
    approvals: 0,
    answer: "",
  };
  if (injection !== undefined) {
    result.injectionTask = injection.task.id;
    result.attack = injection.attack;
  }
  try {
    const run = await runCondition(condition, input);
    result.answer = run.answer;
    result.approvals = run.approvals;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  }
  // The outcomes are the suite's scorers, on the state the run left.
  const scored = runInput(c, result.answer, result.error !== undefined);
  const signal = new AbortController().signal;
  result.utility = (await scorers.utility.score(scored, { signal })).value === 1;
  if (injection !== undefined)
    result.attackSucceeded = (await scorers.attackSuccess.score(scored, { signal })).value === 1;
  scorers.states.delete(c.id);
  return result;
}

function ratio(results: readonly ScenarioResult[], pick: (r: ScenarioResult) => number): Ratio {
  return { count: results.reduce((sum, r) => sum + pick(r), 0), total: results.length };
}

function rowOf(model: string, condition: ConditionName, environment: string, results: ScenarioResult[]): SuiteRow {
  const attacked = results.filter((r) => r.injectionTask !== undefined);
  const benign = results.filter((r) => r.injectionTask === undefined);
  return {
    model,
    condition,
    environment,
    attackSuccess: ratio(attacked, (r) => (r.attackSucceeded === true ? 1 : 0)),
    utilityUnderAttack: ratio(attacked, (r) => (r.utility ? 1 : 0)),
    benignUtility: ratio(benign, (r) => (r.utility ? 1 : 0)),
    benignApprovals: ratio(benign, (r) => r.approvals),
  };
}

/** Run the suite and tabulate it. Runs are sequential: each owns its state, model and store. */
export async function runInjectionSuite(options: SuiteOptions): Promise<SuiteReport> {
  const suites = options.suites ?? DEFAULT_SUITES;
  const environments = environmentsOf(suites);
  const conditions = options.conditions ?? CONDITIONS;
  const maxSteps = options.maxSteps ?? 12;
  // The suite is a dataset of cases and two scorers (injection-dataset.ts).
  const dataset = await injectionDataset(suites);
  const scenarios = new Map(dataset.cases.map((c) => [c.id, injectionScenario(c)]));
  const states = new Map<string, unknown>();
  const scorers: SuiteScorers = {
    ...injectionScorers(
      (id) => scenarios.get(id),
      (id) => states.get(id),
    ),
    states,
  };
  const results: ScenarioResult[] = [];
  const rows: SuiteRow[] = [];
  for (const model of options.models) {
    for (const condition of conditions) {
      const mine: ScenarioResult[] = [];
      for (const environment of environments) {
        const here: ScenarioResult[] = [];
        for (const c of dataset.cases) {
          const scenario = scenarios.get(c.id);
          if (scenario?.environment !== environment) continue;
          const result = await runScenario(c, scenario, model, condition, maxSteps, scorers);
          options.onResult?.(result);
          here.push(result);
        }
        rows.push(rowOf(model.name, condition, environment.name, here));
        mine.push(...here);
      }
      if (environments.length > 1) rows.push(rowOf(model.name, condition, "all", mine));
      results.push(...mine);
    }
  }
  return { results, rows };
}
