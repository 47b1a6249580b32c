/**
 * The parts of the AI SDK's UI message stream (protocol v1) that Sema sends, and the message
 * parts they build. Written here rather than imported: the server does not depend on the `ai`
 * package; `ui-chunk.test-d.ts` holds each type assignable to the `ai` package's own
 * (`UIMessageChunk`, `UIMessage`), so the two cannot drift.
 */
import type { JsonValue } from "@sema-agent/core";

/** Sema's own facts, as `data-sema-*` parts: a steer and what became of it, a park. */
export type SemaDataChunk =
  | { type: "data-sema-steer"; id: string; data: SteerData }
  | { type: "data-sema-parked"; id: string; data: ParkedData };

/** A person's message during a run: `received`, then `applied` at a step boundary (or `dropped`). */
export interface SteerData {
  inputId: string;
  status: "received" | "applied" | "dropped";
  text: string;
  /** Who sent it, as the log records the actor. */
  from?: string;
  /** Its lane when not the user's own (`supervisor`, `external`, …). */
  source?: string;
}

/** The leg stopped: what it waits for (`approval`, `interrupt`, …), or a host restart it continues after. */
export interface ParkedData {
  reason: string;
  detail?: string;
}

/** One part of the stream. */
export type UiChunk =
  | { type: "start"; messageId: string }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: JsonValue }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string; signature: string }
  | { type: "tool-approval-response"; approvalId: string; approved: boolean; reason?: string }
  | { type: "tool-output-available"; toolCallId: string; output: JsonValue }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "steering-message"; id: string; parts: { type: "text"; text: string }[] }
  | SemaDataChunk
  | { type: "error"; errorText: string }
  | { type: "abort"; reason: string }
  | { type: "finish"; finishReason: "stop" | "tool-calls" | "length" | "content-filter" | "error" | "other" };

/** How a call was approved or denied, on its part. */
interface UiApproval {
  id: string;
  signature?: string;
  reason?: string;
}

/** A tool call's part, by the state it reached (the AI SDK's `ToolUIPart`). */
export type UiToolPart = { type: `tool-${string}`; toolCallId: string } & (
  | { state: "input-streaming"; input?: JsonValue }
  | { state: "input-available"; input: JsonValue }
  | { state: "approval-requested"; input: JsonValue; approval: { id: string; signature: string } }
  | { state: "approval-responded"; input: JsonValue; approval: UiApproval & { approved: boolean } }
  | { state: "output-available"; input: JsonValue; output: JsonValue; approval?: UiApproval & { approved: true } }
  | {
      state: "output-error";
      input: JsonValue | undefined;
      errorText: string;
      approval?: UiApproval & { approved: true };
    }
  | { state: "output-denied"; input: JsonValue; approval: UiApproval & { approved: false } }
);

/** A part of a message, as `useChat` holds it. */
export type UiPart =
  | { type: "step-start" }
  | { type: "text"; text: string; state?: "streaming" | "done" }
  | { type: "reasoning"; id: string; text: string; state?: "streaming" | "done" }
  | UiToolPart
  | { type: "steering-message"; id: string; parts: { type: "text"; text: string }[] }
  | SemaDataChunk;

/** A message, in the shape `useChat` takes as its initial messages. */
export interface UiMessage {
  id: string;
  role: "user" | "assistant";
  parts: UiPart[];
}
