/**
 * The attribute and span names the traces use. The `gen_ai.*` names are the OpenTelemetry GenAI
 * semantic conventions (experimental, as published in `@opentelemetry/semantic-conventions`
 * 1.45.0's incubating entry, which this package pins exactly because incubating names may change
 * in a minor release; the conventions: https://opentelemetry.io/docs/specs/semconv/gen-ai/).
 * The `sema.*` names are Sema's own, for what the conventions have no name for (legs, approvals,
 * human inputs).
 */
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";
import type { ModelSettingKey } from "@sema-agent/core/protocol";

/** The GenAI conventions' attribute names this package writes, by what they hold. */
export const GEN_AI = {
  operation: ATTR_GEN_AI_OPERATION_NAME,
  agentName: ATTR_GEN_AI_AGENT_NAME,
  conversationId: ATTR_GEN_AI_CONVERSATION_ID,
  providerName: ATTR_GEN_AI_PROVIDER_NAME,
  /** Deprecated (1.37) for `providerName`; written beside it for older backends unless opted out (see `deprecatedAttributes`). */
  system: ATTR_GEN_AI_SYSTEM,
  requestModel: ATTR_GEN_AI_REQUEST_MODEL,
  responseModel: ATTR_GEN_AI_RESPONSE_MODEL,
  temperature: ATTR_GEN_AI_REQUEST_TEMPERATURE,
  topP: ATTR_GEN_AI_REQUEST_TOP_P,
  maxTokens: ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  seed: ATTR_GEN_AI_REQUEST_SEED,
  frequencyPenalty: ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  stopSequences: ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  finishReasons: ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  inputTokens: ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  outputTokens: ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  cachedInputTokens: ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  reasoningTokens: ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  toolName: ATTR_GEN_AI_TOOL_NAME,
  toolCallId: ATTR_GEN_AI_TOOL_CALL_ID,
  inputMessages: ATTR_GEN_AI_INPUT_MESSAGES,
  outputMessages: ATTR_GEN_AI_OUTPUT_MESSAGES,
  toolArguments: ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  toolResult: ATTR_GEN_AI_TOOL_CALL_RESULT,
} as const;

/**
 * The `gen_ai.request.*` attribute of each model setting, or `null` where the conventions have
 * none. Every setting has a line: a new one fails the compile here until it is placed, rather
 * than going untraced without a word.
 */
export const SETTING_ATTRIBUTES = {
  temperature: GEN_AI.temperature,
  topP: GEN_AI.topP,
  maxOutputTokens: GEN_AI.maxTokens,
  stopSequences: GEN_AI.stopSequences,
  seed: GEN_AI.seed,
  frequencyPenalty: GEN_AI.frequencyPenalty,
  // No convention: the tool choice and the vendors' own options are not request attributes.
  toolChoice: null,
  providerOptions: null,
} as const satisfies Record<ModelSettingKey, string | null>;

/** The `gen_ai.operation.name` values of the three kinds of span. */
export const OPERATION = {
  invokeAgent: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  chat: GEN_AI_OPERATION_NAME_VALUE_CHAT,
  executeTool: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} as const;

/** The conventions' `error.type`: set on a span whose status is an error. */
export const ERROR_TYPE = "error.type";

/** Sema's own attribute names (no GenAI convention covers them). */
export const SEMA = {
  principal: "sema.task.principal",
  scoreName: "sema.score.name",
  scoreValue: "sema.score.value",
  scoreReason: "sema.score.reason",
  scoreExperiment: "sema.score.experiment",
  parentTaskId: "sema.task.parent_id",
  taskStatus: "sema.task.status",
  legId: "sema.leg.id",
  legTrigger: "sema.leg.trigger",
  legEndReason: "sema.leg.end_reason",
  holderId: "sema.leg.holder.id",
  holderHost: "sema.leg.holder.host",
  turnSeq: "sema.turn.seq",
  toolStatus: "sema.tool.status",
  toolAttempt: "sema.tool.attempt",
  toolDurationMs: "sema.tool.duration_ms",
  toolTruncated: "sema.tool.truncated",
  toolInterrupted: "sema.tool.interrupted",
  toolInDoubt: "sema.tool.in_doubt",
  approvalDecision: "sema.approval.decision",
  approvalActor: "sema.approval.actor.id",
  approvalVerified: "sema.approval.actor.verified",
  open: "sema.span.open",
} as const;

/** The names of the span events (things that happen at an instant inside a span). */
export const SPAN_EVENT = {
  humanInput: "sema.human_input",
  approvalRequested: "sema.approval.requested",
  approvalDecided: "sema.approval.decided",
  hookFeedback: "sema.hook.feedback",
  note: "sema.engine_note",
  interrupt: "sema.interrupt_requested",
  resume: "sema.resume_requested",
  child: "sema.child_task",
  compaction: "sema.compaction",
  wake: "sema.wake_scheduled",
  externalTools: "sema.external_tools",
  checkpoint: "sema.tool.checkpoint",
  retry: "sema.tool.retry",
} as const;

/** The name of a leg's span (one host's run of the task's loop). */
export const LEG_SPAN = "sema.leg";
