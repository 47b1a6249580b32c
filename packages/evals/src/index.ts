/**
 * `@sema-agent/evals`: evaluations over any agent (docs/guide/evals.md) — datasets (JSON Lines,
 * made from recorded tasks, saved in the store by name and version), the built-in scorers
 * (`exactMatch`, `includes`, `regex`, `jsonMatch`, `jsonSchemaValid`, `toolTrajectory`, the
 * `turns`, `tokens`, `cost` and `latency` limits, and `llmJudge`), experiments that run a dataset
 * as tasks and score them durably (`runExperiment`), gates for CI and comparisons. And an offline,
 * AgentDojo-style prompt-injection suite: environments (mailbox, file workspace, banking, and
 * `limits`) with benign user tasks and injection tasks; scripted obedient and task-following
 * models, or any `Model`; and three conditions: a naive loop, Sema with framing only, Sema with
 * framing and the provenance policy.
 *
 * @module @sema-agent/evals
 */
export { ATTACKS, type AttackTemplate, attackText, callText } from "./attacks.ts";
export {
  type CaseInput,
  caseAttachmentSchema,
  caseIdSchema,
  caseInputSchema,
  type DatasetCase,
  type DatasetCaseInput,
  datasetCaseSchema,
} from "./datasets/dataset-case.ts";
export { caseFromTask, type DatasetFromTasksOptions, datasetFromTasks } from "./datasets/dataset-from-tasks.ts";
export {
  DATASET_KIND,
  listDatasets,
  loadDataset,
  type StoredDataset,
  saveDataset,
} from "./datasets/dataset-records.ts";
export {
  checkCases,
  type Dataset,
  datasetDigest,
  formatDataset,
  MAX_CASES,
  parseDataset,
} from "./datasets/parse-dataset.ts";
export { type BankingState, banking } from "./environments/banking.ts";
export { type LimitsState, limits } from "./environments/limits.ts";
export { type MailboxState, mailbox } from "./environments/mailbox.ts";
export { type WorkspaceState, workspace } from "./environments/workspace.ts";
export { type CaseChange, compareExperiments, type ExperimentComparison } from "./experiments/compare.ts";
export {
  createExperiment,
  EXPERIMENT_KIND,
  type ExperimentRecord,
  experimentRecordSchema,
  listExperiments,
  loadExperimentRecord,
  type NewExperiment,
} from "./experiments/experiment-record.ts";
export { type CaseResult, type ExperimentResult, loadExperiment } from "./experiments/experiment-results.ts";
export { formatComparison, formatExperiment } from "./experiments/format-results.ts";
export { checkGates, type Gate, type GateFailure, parseGate } from "./experiments/gates.ts";
export { type RunExperimentOptions, runExperiment } from "./experiments/run-experiment.ts";
export {
  type InjectionCaseMeta,
  type InjectionScenario,
  injectionDataset,
  injectionScenario,
  injectionScorers,
} from "./injection-dataset.ts";
export { findInstructions } from "./instructions.ts";
export { type ConditionRun, type LoopInput, runNaiveLoop } from "./naive-loop.ts";
export {
  CONDITIONS,
  type ConditionName,
  type ModelChoice,
  type Ratio,
  runInjectionSuite,
  type ScenarioResult,
  type SuiteOptions,
  type SuiteReport,
  type SuiteRow,
} from "./run-suite.ts";
export { type CostOptions, cost } from "./scorers/cost.ts";
export { type ExactMatchOptions, exactMatch } from "./scorers/exact-match.ts";
export { type IncludesOptions, includes } from "./scorers/includes.ts";
export { type JsonMatchOptions, jsonMatch } from "./scorers/json-match.ts";
export { jsonSchemaValid } from "./scorers/json-schema-valid.ts";
export { type LatencyOptions, latency } from "./scorers/latency.ts";
export { type LlmJudgeOptions, llmJudge } from "./scorers/llm-judge.ts";
export { escapeRegex, type RegexOptions, regex } from "./scorers/regex.ts";
export { SCORER_SPECS, scorerFromSpec } from "./scorers/scorer-spec.ts";
export { type TokensOptions, tokens } from "./scorers/tokens.ts";
export {
  type ExpectedToolCall,
  type ToolTrajectoryOptions,
  toolTrajectory,
} from "./scorers/tool-trajectory.ts";
export { type TurnsOptions, turns } from "./scorers/turns.ts";
export { modelChoice, SCRIPTED_MODELS, scriptedChoice } from "./scripted-choices.ts";
export { type ScriptedKind, scriptedModel } from "./scripted-models.ts";
export { runSema } from "./sema-run.ts";
export { DEFAULT_SUITES, ENVIRONMENTS, environmentsOf } from "./suites.ts";
export { formatTable } from "./table.ts";
export type { AnyEnvironment, Environment, InjectionTask, Observation, PlannedCall, UserTask } from "./types.ts";
export { anyEnvironment } from "./types.ts";
