/**
 * `@sema-agent/core`: what an application uses — agents, tasks, legs, tools, approvals, hooks,
 * budgets, the in-memory store, errors and the human-input projection. It imports no `node:*`
 * module, so it runs on Node, Deno, Bun, Workers and in a browser. By audience, the rest lives on
 * subpaths: `./protocol` (the log's event schemas and types, every error class), `./store-kit`
 * (what a store adapter builds on), `./model-kit` (what a model adapter builds on), `./quotas`
 * (a host's per-principal quotas), `./trust` (the provenance classification, the policy's table
 * and the neutralizers), `./node` (the lease identity of a Node process), `./testing`.
 *
 * @module @sema-agent/core
 */

export { MemoryStore } from "./adapters/memory-store.ts";
export type {
  AgentDefinition,
  AgentHandle,
  AgentHooks,
  AgentHostOptions,
  AgentInput,
  AgentStream,
  ApproveOptions,
  ContinueOptions,
  OutputOf,
  PendingApproval,
  RunOptions,
  RunResult,
  RunStep,
  RunToolCall,
  SendOptions,
  ToolCallOf,
} from "./agent/agent-types.ts";
export { createAgent } from "./agent/create-agent.ts";
export { type ApprovalState, fold, type TaskState } from "./core/fold.ts";
export {
  buildAppliedHumanInputEvent,
  buildHumanInputEvent,
  frameMidTurnUserInput,
  type HumanInputFrame,
  LABEL_ID_MAX_CHARS,
  projectHumanInput,
  speakerLabel,
} from "./core/human-input-projection.ts";
export { isTerminal } from "./core/task-summary.ts";
export type { Agent, DelegationSettings, HarnessOptions, OutputSchema, ToolCallRef } from "./harness/agent.ts";
export { type Budget, type BudgetLimit, costUsd, type ModelPrice, priceOf } from "./harness/budget/budget.ts";
export { validateAgent } from "./harness/config/agent-schema.ts";
export { DEFAULTS } from "./harness/defaults.ts";
export { childAgent } from "./harness/delegation/child-tasks.ts";
export type {
  BeforeToolDecision,
  DeepReadonly,
  HookContext,
  HookFeedback,
  HookName,
  HookSettings,
  Hooks,
} from "./harness/hooks/hooks.ts";
export type { LegOutcome } from "./harness/leg/leg-outcome.ts";
export { type LegOptions, runLeg } from "./harness/leg/run-leg.ts";
export { type LegStream, streamLeg } from "./harness/leg/stream-leg.ts";
export type { CompactionSettings } from "./harness/model/compaction.ts";
export type { ContentLimits, ContentOptions } from "./harness/tasks/content-ingress.ts";
export { cancel, interrupt, requestResume } from "./harness/tasks/control.ts";
export {
  type ExternalToolResult,
  offerExternalTools,
  submitToolResult,
} from "./harness/tasks/external-tools.ts";
export { type SendInputOptions, type SentInput, sendInput } from "./harness/tasks/send-input.ts";
export { type StartTaskInput, startTask } from "./harness/tasks/start-task.ts";
export { loadTaskOverview, loadTaskState, overviewOf, type TaskOverview } from "./harness/tasks/task-overview.ts";
export { type WakeAtOptions, wake, wakeAt } from "./harness/tasks/wake.ts";
export {
  type CanApprove,
  type DecideApprovalOptions,
  type Decision,
  decideApproval,
  defaultCanApprove,
} from "./harness/tools/approvals.ts";
export {
  defineTool,
  type JsonSchemaObject,
  type JsonSchemaValidator,
  jsonSchema,
  type ToolDefinition,
  type ToolInputOf,
  type ToolInputSchema,
} from "./harness/tools/define-tool.ts";
export type { Model } from "./ports/model.ts";
export type * from "./ports/standard-schema.ts";
export type { Store, TaskRecord } from "./ports/store.ts";
export type * from "./ports/tool.ts";
export type {
  Attachment,
  ContentData,
  ContentPart,
  FilePart,
  ImagePart,
  TextPart,
} from "./protocol/content.ts";
export { isSemaError, SemaError, type SemaErrorCode } from "./protocol/errors.ts";
export type {
  CoreCarrier,
  HumanInputDelivery,
  HumanInputEvent,
  HumanInputPolicy,
  HumanInputSource,
  TaskEventIdentity,
} from "./protocol/human-input.ts";
export type { JsonValue } from "./protocol/json.ts";
export type { ToolChoice } from "./protocol/model-settings.ts";
export type { CallProvenance, ProvenancePolicy, ToolEffects } from "./protocol/provenance.ts";
export type { Emit, StreamEvent } from "./protocol/stream-event.ts";
export type { ParkReason, StoredEvent, TaskEvent } from "./protocol/task-event.ts";
export type { TaskStatus, TaskSummary } from "./protocol/task-summary.ts";
export { parseTraceContext, type TraceContext } from "./protocol/trace-context.ts";
export type { ActorAssertion, ToolCall, ToolResultStatus } from "./protocol/transcript.ts";
export type { Usage } from "./protocol/usage.ts";
