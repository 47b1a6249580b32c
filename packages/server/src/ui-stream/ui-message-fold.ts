/**
 * UI stream parts folded into the message they build, as `useChat` builds it from the stream
 * (for the parts Sema sends): the transcript is the stream's own result, not a second mapping.
 */
import type { UiChunk, UiMessage, UiPart, UiToolPart } from "./ui-chunk.ts";

/** A tool part while it moves through its states (each state's shape is the stream's to keep). */
interface ToolState {
  state: UiToolPart["state"];
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; signature?: string; approved?: boolean; reason?: string };
}

function toolPart(message: UiMessage, toolCallId: string): ToolState | undefined {
  for (let index = message.parts.length - 1; index >= 0; index--) {
    const part = message.parts[index];
    if (part !== undefined && "toolCallId" in part && part.toolCallId === toolCallId) return part as ToolState;
  }
  return undefined;
}

function openText(message: UiMessage, kind: "text" | "reasoning"): Extract<UiPart, { text: string }> | undefined {
  for (let index = message.parts.length - 1; index >= 0; index--) {
    const part = message.parts[index];
    if (part?.type === kind && part.state === "streaming") return part;
  }
  return undefined;
}

/** Apply one part of the stream to `message`. */
export function foldChunk(message: UiMessage, chunk: UiChunk): void {
  switch (chunk.type) {
    case "start-step":
      message.parts.push({ type: "step-start" });
      return;
    case "text-start":
      message.parts.push({ type: "text", text: "", state: "streaming" });
      return;
    case "reasoning-start":
      message.parts.push({ type: "reasoning", id: chunk.id, text: "", state: "streaming" });
      return;
    case "text-delta":
    case "reasoning-delta": {
      const part = openText(message, chunk.type === "text-delta" ? "text" : "reasoning");
      if (part !== undefined) part.text += chunk.delta;
      return;
    }
    case "text-end":
    case "reasoning-end": {
      const part = openText(message, chunk.type === "text-end" ? "text" : "reasoning");
      if (part !== undefined) part.state = "done";
      return;
    }
    case "tool-input-start":
      message.parts.push({ type: `tool-${chunk.toolName}`, toolCallId: chunk.toolCallId, state: "input-streaming" });
      return;
    case "tool-input-available": {
      const part = toolPart(message, chunk.toolCallId);
      if (part === undefined)
        message.parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId,
          state: "input-available",
          input: chunk.input,
        });
      else Object.assign(part, { state: "input-available", input: chunk.input });
      return;
    }
    case "tool-approval-request": {
      const part = toolPart(message, chunk.toolCallId);
      if (part === undefined) return;
      part.state = "approval-requested";
      part.approval = { id: chunk.approvalId, signature: chunk.signature };
      return;
    }
    case "tool-approval-response": {
      const part = message.parts.find(
        (candidate) => "approval" in candidate && candidate.approval?.id === chunk.approvalId,
      ) as ToolState | undefined;
      if (part === undefined) return;
      part.state = "approval-responded";
      part.approval = {
        ...part.approval,
        id: chunk.approvalId,
        approved: chunk.approved,
        ...(chunk.reason === undefined ? {} : { reason: chunk.reason }),
      };
      return;
    }
    case "tool-output-available":
    case "tool-output-error":
    case "tool-output-denied": {
      const part = toolPart(message, chunk.toolCallId);
      if (part === undefined) return;
      if (chunk.type === "tool-output-available")
        Object.assign(part, { state: "output-available", output: chunk.output });
      else if (chunk.type === "tool-output-error")
        Object.assign(part, { state: "output-error", errorText: chunk.errorText });
      else part.state = "output-denied";
      return;
    }
    case "steering-message":
      message.parts.push({ type: "steering-message", id: chunk.id, parts: chunk.parts });
      return;
    case "data-sema-steer":
    case "data-sema-parked": {
      const existing = message.parts.find(
        (part): part is typeof chunk => part.type === chunk.type && "id" in part && part.id === chunk.id,
      );
      if (existing !== undefined) existing.data = chunk.data;
      else message.parts.push({ ...chunk } as typeof chunk);
      return;
    }
    default:
      // start, finish-step, tool-input-delta, error, abort, finish: nothing of the message's parts.
      return;
  }
}
