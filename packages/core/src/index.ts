/**
 * `@sema-agent/core`: the protocol, the pure core and the harness of Sema, a stateless,
 * task-oriented AI agent core. Test helpers live on `@sema-agent/core/testing`.
 */

export { claimByListing } from "./adapters/claim-by-listing.ts";
export { fairListing, fairOrder, limitPerPrincipal } from "./adapters/fair-claims.ts";
export { MemoryStore } from "./adapters/memory-store.ts";
export * from "./adapters/sql-rows.ts";
export * from "./adapters/store-rules.ts";
export { SummaryCache } from "./adapters/summary-cache.ts";
export { ChangeNotifier, type TailSource, tailEvents, watchTask } from "./adapters/tail-events.ts";
export { canonicalJson, deepFreeze, frozenFromJson, jsonCopy } from "./core/canonical-json.ts";
// Core: pure functions over the log.
export { validateEvents } from "./core/event-validation.ts";
export {
  type ApprovalState,
  type ChildState,
  EMPTY_STATE,
  Folder,
  fold,
  type OpenToolCall,
  type PendingInput,
  stateFromJson,
  stateToJson,
  TASK_STATE_VERSION,
  type TaskState,
  type TimerState,
  UNSETTLED_CALL_CONTENT,
} from "./core/fold.ts";
export {
  buildAppliedHumanInputEvent,
  buildHumanInputEvent,
  frameMidTurnUserInput,
  type HumanInputFrame,
  LABEL_ID_MAX_CHARS,
  projectHumanInput,
  speakerLabel,
} from "./core/human-input-projection.ts";
export { sanitizeHumanText } from "./core/human-text.ts";
export { deliveryEvents, dueTimerInputs } from "./core/input-delivery.ts";
export { renderInput, renderInputs } from "./core/input-rendering.ts";
export { attrEscape, CUT_MARK, inlineUntrusted } from "./core/neutralizers.ts";
export {
  defuseReservedMarkup,
  defuseReservedTags,
  isFrameHeadLine,
  QUOTE_MARK,
  quoteFrameHeads,
} from "./core/reserved-markup.ts";
export { STANDING_INSTRUCTIONS } from "./core/standing-instructions.ts";
export {
  EMPTY_SUMMARY,
  isTerminal,
  nextWakeAt,
  reduceSummary,
  summarize,
  summarizeAfter,
} from "./core/task-summary.ts";
export {
  type DelimitUntrustedOptions,
  defaultRandomBytes,
  delimitUntrusted,
  formatHookFeedback,
  frameOperatorInput,
  HEADER_VALUE_MAX_CHARS,
  type RandomBytes,
} from "./core/trust-framing.ts";
export { type WaitingInputs, waitingInputs } from "./core/waiting-inputs.ts";
export { type Agent, type DelegationSettings, defaultHolder, type HarnessOptions } from "./harness/agent.ts";
export {
  type Budget,
  type BudgetLimit,
  costUsd,
  DEFAULT_PRICES,
  exceededLimit,
  type ModelPrice,
  priceOf,
} from "./harness/budget/budget.ts";
export { DEFAULTS } from "./harness/defaults.ts";
export { childAgent, childTaskId, notifyParent, startChildTask, steerChild } from "./harness/delegation/child-tasks.ts";
export { DELEGATE_TOOL, delegateSpec } from "./harness/delegation/delegate-tool.ts";
export type {
  BeforeToolDecision,
  DeepReadonly,
  HookContext,
  HookFeedback,
  HookName,
  HookSettings,
  Hooks,
} from "./harness/hooks/hooks.ts";
export { hasWork } from "./harness/leg/has-work.ts";
export { type LegOutcome, outcomeOf } from "./harness/leg/leg-outcome.ts";
export { holderDiedHere, processAlive, processSpace } from "./harness/leg/process-space.ts";
export { type LegOptions, runLeg } from "./harness/leg/run-leg.ts";
export { type LegStream, streamLeg } from "./harness/leg/stream-leg.ts";
// Harness: the turn loop and the task operations.
export { tasksOfDeadHoldersHere } from "./harness/leg/take-lease.ts";
export {
  type CompactionSettings,
  compactionCut,
  SUMMARY_INSTRUCTIONS,
  shouldCompact,
} from "./harness/model/compaction.ts";
export { buildModelRequest, systemText, toolSpecs } from "./harness/model/model-request.ts";
export { type RetryPolicy, retryDelayMs, withRetry } from "./harness/model/retry.ts";
export { cancel, interrupt, requestResume } from "./harness/tasks/control.ts";
export { type SendInputOptions, type SentInput, sendInput } from "./harness/tasks/send-input.ts";
export { type StartTaskInput, startTask } from "./harness/tasks/start-task.ts";
export { loadTaskOverview, loadTaskState, overviewOf, type TaskOverview } from "./harness/tasks/task-overview.ts";
export { type WakeAtOptions, wake, wakeAt } from "./harness/tasks/wake.ts";
export {
  approvalRequest,
  type CanApprove,
  type DecideApprovalOptions,
  type Decision,
  decideApproval,
  defaultCanApprove,
  sha256Hex,
} from "./harness/tools/approvals.ts";
export { defineTool, type ToolDefinition } from "./harness/tools/define-tool.ts";
export { INTERRUPTED_CONTENT, NOT_RUN_CONTENT } from "./harness/tools/run-tool-call.ts";
export { CRASHED_CALL_CONTENT } from "./harness/tools/tool-phase.ts";
export { newId } from "./internal/ids.ts";
// Model and tool ports.
export type * from "./ports/model.ts";
export type * from "./ports/standard-schema.ts";
// Ports and the in-memory adapter; the rules and the live tail other adapters build on.
export type * from "./ports/store.ts";
export type * from "./ports/tool.ts";
export * from "./protocol/errors.ts";
export type {
  CoreCarrier,
  HumanInputDelivery,
  HumanInputEvent,
  HumanInputPolicy,
  HumanInputSource,
  TaskEventIdentity,
} from "./protocol/human-input.ts";
// Protocol: the session log's vocabulary and the typed errors.
export type { JsonValue } from "./protocol/json.ts";
export * from "./protocol/stream-event.ts";
export * from "./protocol/task-event.ts";
export {
  EVENT_SEQS_VERSION,
  type EventSeqs,
  type LogPosition,
  type TaskStatus,
  type TaskSummary,
} from "./protocol/task-summary.ts";
export type {
  ActorAssertion,
  FinishReason,
  ToolCall,
  ToolResultStatus,
  TranscriptEntry,
  Usage,
} from "./protocol/transcript.ts";
