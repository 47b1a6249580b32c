/**
 * The conversation as AG-UI messages, from the task's transcript: what a reloaded client that
 * posts a run with no messages is sent first (`MESSAGES_SNAPSHOT`), so the page shows the whole
 * thread and then follows the running leg. The texts are the transcript's, exactly as the model
 * received them (a steer carries its speaker's label, a tool result its fence).
 */
import { EventType } from "@ag-ui/core";
import type { TaskState } from "@sema-agent/core";
import type { AgUiEvent } from "./event-map.ts";
import { turnMessageId } from "./event-map.ts";

type SnapshotMessage =
  | { id: string; role: "user"; content: string }
  | {
      id: string;
      role: "assistant";
      content?: string;
      toolCalls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
    }
  | { id: string; role: "tool"; toolCallId: string; content: string; error?: string };

/** `MESSAGES_SNAPSHOT` of the task's transcript. */
export function messagesSnapshot(state: TaskState): AgUiEvent {
  const turns = state.transcript.filter((entry) => entry.role === "assistant").length;
  // Turns summarized away by a compaction are not in the transcript: count back from the last.
  let turn = state.summary.sessionSeq - turns;
  const messages: SnapshotMessage[] = state.transcript.map((entry) => {
    if (entry.role === "user") return { id: entry.entryId, role: "user", content: entry.content };
    if (entry.role === "tool") {
      const message: SnapshotMessage = {
        id: `sema-result-${entry.callId}`,
        role: "tool",
        toolCallId: entry.callId,
        content: entry.content,
      };
      if (entry.status !== "ok") message.error = entry.status;
      return message;
    }
    turn += 1;
    const message: SnapshotMessage = { id: turnMessageId(turn), role: "assistant" };
    if (entry.text !== "") message.content = entry.text;
    if (entry.toolCalls.length > 0)
      message.toolCalls = entry.toolCalls.map((call) => ({
        id: call.callId,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.input) },
      }));
    return message;
  });
  return { type: EventType.MESSAGES_SNAPSHOT, messages };
}
