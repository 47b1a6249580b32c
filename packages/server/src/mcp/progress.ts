/**
 * Progress notifications of a waiting tool call: one per step of the task worth telling (a model
 * turn, a tool run, an approval asked, an input, the end), numbered by the event's seq so the
 * progress only grows, as MCP requires. Sent only when the client asked (a `progressToken`).
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { StoredEvent } from "@sema-agent/core";

/** The handler's `extra`, as the MCP SDK gives it to a tool. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const SNIPPET_CHARS = 200;

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}

/** One line about `event`, or undefined for events not worth a notification. */
export function describeEvent(event: StoredEvent): string | undefined {
  switch (event.type) {
    case "leg_started":
      return "running";
    case "model_turn": {
      const calls = event.toolCalls.map((call) => call.name);
      if (calls.length > 0) return `model turn ${event.sessionSeq}: calls ${calls.join(", ")}`;
      return `model turn ${event.sessionSeq}${event.text === "" ? "" : `: ${snippet(event.text)}`}`;
    }
    case "tool_call_started":
      return `tool ${event.name} running`;
    case "tool_result":
      return `tool ${event.name}: ${event.status}`;
    case "approval_requested":
      return `waiting for approval of ${event.name} (call ${event.callId})`;
    case "approval_decided":
      return `call ${event.callId}: ${event.decision === "approve" ? "approved" : "denied"}`;
    case "human_input":
      return `input ${event.delivery}`;
    case "leg_ended":
      return `leg ended: ${event.reason}`;
    case "task_completed":
      return "completed";
    case "task_failed":
      return `failed: ${event.error.code}`;
    case "task_cancelled":
      return "cancelled";
    default:
      return undefined;
  }
}

/** The event listener that notifies the client of progress, or undefined when it asked for none. */
export function progressOf(extra: ToolExtra): ((event: StoredEvent) => Promise<void>) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return async (event) => {
    const message = describeEvent(event);
    if (message === undefined) return;
    try {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: event.seq, message },
      });
    } catch {
      // A client gone mid-call: the task goes on, and nobody is left to tell.
    }
  };
}
