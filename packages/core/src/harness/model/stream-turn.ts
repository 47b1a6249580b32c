/**
 * One model call: stream it, forward deltas to the live sink (ephemeral, never stored), and
 * collect the turn that will be recorded. A failure is data here, as the port promises: the
 * caller decides whether it fails the task, is retried, or was an interrupt.
 */

import type { Model, ModelFailure, ModelPart, ModelRequest } from "../../ports/model.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { Emit } from "../../protocol/stream-event.ts";
import type { EngineNoteEvent } from "../../protocol/task-event.ts";
import type { FinishReason, ToolCall } from "../../protocol/transcript.ts";
import type { Usage } from "../../protocol/usage.ts";

export interface CollectedTurn {
  text: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: FinishReason;
}

export type StepResult = { ok: true; turn: CollectedTurn } | { ok: false; failure: ModelFailure };

function parseArguments(text: string): JsonValue {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    // Malformed arguments stay as text; the tool's schema refuses them and the model is told.
    return text;
  }
}

/** Call ids must be unique in a task; a repeated id from a model gets a suffix. */
function uniqueId(id: string, isTaken: (id: string) => boolean): string {
  if (id !== "" && !isTaken(id)) return id;
  let n = 2;
  while (isTaken(`${id || "call"}~${n}`)) n++;
  return `${id || "call"}~${n}`;
}

export async function streamModelTurn(options: {
  model: Model;
  request: ModelRequest;
  signal: AbortSignal;
  /** Live deltas go here; without one, none are built. */
  emit?: Emit | undefined;
  taskId: string;
  legId: string;
  takenCallIds: ReadonlySet<string>;
  onRetry: (part: Extract<ModelPart, { type: "retry" }>) => Promise<void>;
}): Promise<StepResult> {
  const { emit, taskId, legId } = options;
  let text = "";
  let reasoning: string | undefined;
  const toolCalls: ToolCall[] = [];
  // Ids of this turn's calls; together with the task's open ones they must stay unique.
  const taken = new Set<string>();
  const isTaken = (id: string) => taken.has(id) || options.takenCallIds.has(id);
  try {
    for await (const part of options.model.stream(options.request, options.signal)) {
      switch (part.type) {
        case "text-delta":
          text += part.delta;
          emit?.({ type: "text_delta", taskId, legId, delta: part.delta });
          break;
        case "reasoning-delta":
          reasoning = (reasoning ?? "") + part.delta;
          emit?.({ type: "reasoning_delta", taskId, legId, delta: part.delta });
          break;
        case "tool-input-start":
          emit?.({ type: "tool_input_start", taskId, legId, callId: part.id, name: part.toolName });
          break;
        case "tool-input-delta":
          emit?.({ type: "tool_input_delta", taskId, legId, callId: part.id, delta: part.delta });
          break;
        case "tool-input-end":
          emit?.({ type: "tool_input_end", taskId, legId, callId: part.id });
          break;
        case "tool-call": {
          const callId = uniqueId(part.toolCallId, isTaken);
          taken.add(callId);
          toolCalls.push({ callId, name: part.toolName, input: parseArguments(part.input) });
          break;
        }
        case "retry":
          // Whatever streamed before a retry is discarded with it.
          text = "";
          reasoning = undefined;
          toolCalls.length = 0;
          await options.onRetry(part);
          break;
        case "finish": {
          const turn: CollectedTurn = { text, toolCalls, usage: part.usage, finishReason: part.finishReason };
          if (reasoning !== undefined) turn.reasoning = reasoning;
          return { ok: true, turn };
        }
        case "error":
          return { ok: false, failure: part.failure };
        default:
          break;
      }
    }
  } catch (error) {
    // A port must not throw; one that does is reported like any other failure.
    return {
      ok: false,
      failure: { code: "unknown", message: error instanceof Error ? error.message : String(error), isRetryable: false },
    };
  }
  if (options.signal.aborted)
    return { ok: false, failure: { code: "aborted", message: "the call was aborted", isRetryable: false } };
  return {
    ok: false,
    failure: { code: "malformed_response", message: "the model stream ended without a finish", isRetryable: true },
  };
}

/** The engine note that records a retry, so the log shows every one. */
export function retryNote(part: Extract<ModelPart, { type: "retry" }>, legId: string): EngineNoteEvent {
  const f = part.failure;
  return {
    type: "engine_note",
    v: 1,
    kind: "model_retry",
    text: `${f.message} (${f.code}); retry ${part.attempt} in ${part.delayMs} ms`,
    data: {
      attempt: part.attempt,
      delayMs: part.delayMs,
      code: f.code,
      ...(f.status === undefined ? {} : { status: f.status }),
    },
    legId,
  };
}
