/**
 * The `Model` port: one streaming call. Parts follow the AI SDK's LanguageModelV4 stream-part
 * vocabulary, so an adapter from any AI SDK provider is a thin mapping. An adapter never throws
 * once called: a failure is the last part, `{ type: "error" }`, typed, with `isRetryable`.
 */

import type { JsonValue } from "../protocol/json.ts";
import type { ModelSettings } from "../protocol/model-settings.ts";
import type { FinishReason, TranscriptEntry } from "../protocol/transcript.ts";
import type { Usage } from "../protocol/usage.ts";

/** A tool as the model is told about it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 or 7) of the tool's input object. */
  inputSchema: { [key: string]: JsonValue };
}

/** The final answer must be JSON matching `schema` (LanguageModelV4's `responseFormat`). */
export interface JsonResponseFormat {
  type: "json";
  /** JSON Schema of the answer. */
  schema: { [key: string]: JsonValue };
  name?: string;
  description?: string;
}

/**
 * Everything a model call needs. A pure function of the folded log and the agent's definition:
 * the model settings (every key of `ModelSettings`) are the agent's with the task's recorded ones
 * on top (`mergeModelSettings`). Absent `toolChoice`: the provider's default (`auto` when there
 * are tools).
 */
export interface ModelRequest extends ModelSettings {
  /** Standing instructions, then the agent's own (only the agent's with `standingInstructions: false`). */
  system: string;
  transcript: readonly TranscriptEntry[];
  /**
   * The bytes of every blob the transcript's attachments reference (a user entry's `parts`), by
   * digest, read from the store when the request was built; absent when none are referenced. An
   * adapter sends `blobs.get(attachment.digest)` where the transcript has the reference.
   */
  blobs?: ReadonlyMap<string, Uint8Array>;
  tools: readonly ToolSpec[];
  /** Ask for the final answer as JSON of this schema (the provider's native structured output). */
  responseFormat?: JsonResponseFormat;
}

/**
 * Why a model call failed, whatever the vendor: `rate_limited` (429), `server_error` (5xx, 409),
 * `connection` (network, timeout), `auth`, `bad_request`, `malformed_response` (the stream broke
 * the protocol), `aborted` (the call's signal), `script` (a test's ScriptedModel), `unknown`.
 */
export type ModelFailureCode =
  | "rate_limited"
  | "server_error"
  | "connection"
  | "auth"
  | "bad_request"
  | "malformed_response"
  | "aborted"
  | "script"
  | "unknown";

/** A failure as the last part of a stream. */
export interface ModelFailure {
  /** Stable code; retries and hosts decide on it and `isRetryable`, never on vendor error shapes. */
  code: ModelFailureCode;
  message: string;
  /** Whether the same request may succeed later (retry wrappers and hosts decide on this and `code`). */
  isRetryable: boolean;
  /** HTTP status when the failure came from one. */
  status?: number;
  /** The provider asked to wait this long before retrying (`retry-after`). */
  retryAfterMs?: number;
}

/**
 * One part of a model's stream, in the AI SDK's LanguageModelV4 vocabulary: text, reasoning and
 * tool-input deltas, complete tool calls, the finish with usage, retries, and a typed error last.
 */
export type ModelPart =
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; id: string; toolName: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-input-end"; id: string }
  /** A complete tool call; `input` is the arguments as JSON text, as in LanguageModelV4. */
  | { type: "tool-call"; toolCallId: string; toolName: string; input: string }
  | { type: "finish"; usage: Usage; finishReason: FinishReason }
  /** A retry is about to happen (emitted by retry wrappers so the harness can record it). */
  | { type: "retry"; attempt: number; delayMs: number; failure: ModelFailure }
  | { type: "error"; failure: ModelFailure };

/**
 * The model port: one streaming call per turn. Adapters (`@sema-agent/ai-sdk`, a test's
 * `ScriptedModel`) map a provider's stream to {@link ModelPart}s and report failures as a last
 * `error` part instead of throwing.
 */
export interface Model {
  /** `provider:model-id`, recorded with the task. */
  readonly id: string;
  /** Stream one model turn. Never throws and never rejects once called. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelPart>;
}
