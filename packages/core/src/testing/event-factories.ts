/**
 * Small constructors for valid events, for tests of stores, fold and hosts. Every one returns a
 * fresh object that passes validation.
 */
import { buildHumanInputEvent } from "../core/human-input-projection.ts";
import type { HumanInputEvent } from "../protocol/human-input.ts";
import type {
  EngineNoteEvent,
  LegEndedEvent,
  LegEndReason,
  LegStartedEvent,
  ModelTurnEvent,
  TaskCreatedEvent,
  ToolCallStartedEvent,
  ToolResultEvent,
} from "../protocol/task-event.ts";

/**
 * Constructors of valid events for tests, each with defaults for every argument and a fresh object
 * per call: `created`, `legStarted`, `legEnded`, `note`, `input`, `imageInput`, `turn`, `toolStarted`, `toolResult`.
 */
export const make = {
  /** A `task_created` v 1 of `principal` with `objective`. */
  created(principal = "p1", objective = "Do the thing"): TaskCreatedEvent {
    return { type: "task_created", v: 1, objective, principal };
  },
  /** A `leg_started` of `legId` with its trigger. */
  legStarted(legId = "leg-1", trigger: LegStartedEvent["trigger"] = "start"): LegStartedEvent {
    return { type: "leg_started", v: 1, legId, trigger };
  },
  /** A `leg_ended` of `legId` with its reason. */
  legEnded(legId = "leg-1", reason: LegEndReason = "completed"): LegEndedEvent {
    return { type: "leg_ended", v: 1, legId, reason };
  },
  /** An `engine_note` of `kind` with `text`. */
  note(text = "note", kind = "test"): EngineNoteEvent {
    return { type: "engine_note", v: 1, kind, text };
  },
  /** A `human_input` at `delivery` on `carrier` (text only where that stage carries it). */
  input(delivery: HumanInputEvent["delivery"], carrier = "steer", inputId?: string, text = "hello"): HumanInputEvent {
    return buildHumanInputEvent({
      ...(inputId === undefined ? {} : { inputId }),
      carrier,
      source: "user",
      delivery,
      sessionSeq: 0,
      ...(delivery === "received" || delivery === "parked" ? { text } : {}),
    });
  },
  /**
   * A `human_input` parked on `steer` whose attachment is the PNG blob `digest` of `size` bytes:
   * an event that names a blob.
   */
  imageInput(digest: string, size: number, inputId = "i1"): HumanInputEvent {
    return {
      type: "human_input",
      v: 2,
      inputId,
      carrier: "steer",
      source: "user",
      delivery: "parked",
      sessionSeq: 0,
      text: "look",
      attachments: [{ type: "image", digest, mediaType: "image/png", size }],
    };
  },
  /** A `model_turn` with `text` and `toolCalls` (finish reason `tool-calls` when there are any, else `stop`). */
  turn(sessionSeq: number, text = "ok", toolCalls: ModelTurnEvent["toolCalls"] = [], legId = "leg-1"): ModelTurnEvent {
    return {
      type: "model_turn",
      v: 1,
      legId,
      sessionSeq,
      text,
      toolCalls,
      usage: { inputTokens: 10, outputTokens: 5 },
      finishReason: toolCalls.length > 0 ? "tool-calls" : "stop",
    };
  },
  /** A `tool_call_started` of `callId`, attempt 1. */
  toolStarted(callId: string, name = "echo", legId = "leg-1"): ToolCallStartedEvent {
    return { type: "tool_call_started", v: 1, legId, callId, name, attempt: 1 };
  },
  /** A `tool_result` of `callId` with `content` and `status`. */
  toolResult(
    callId: string,
    content = "done",
    name = "echo",
    status: ToolResultEvent["status"] = "ok",
  ): ToolResultEvent {
    return { type: "tool_result", v: 1, callId, name, status, content };
  },
};
