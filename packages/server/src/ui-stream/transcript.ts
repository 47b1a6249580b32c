/**
 * A chat's transcript as `UIMessage[]` (what `useChat` takes as initial messages), from the log:
 * per turn, the person's message that opened it, the assistant message as the stream built it
 * (every leg: tool calls, approvals, steers applied), then the messages sent as steers during it,
 * where `useChat` had put them (after the assistant message it was streaming).
 */
import type { StoredEvent } from "@sema-agent/core";
import { opensTurn, turnMessageId } from "./chat-turns.ts";
import { TurnEncoder } from "./turn-encoder.ts";
import type { UiMessage } from "./ui-chunk.ts";
import { foldChunk } from "./ui-message-fold.ts";

function userMessage(id: string, text: string): UiMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

export function chatTranscript(events: readonly StoredEvent[]): UiMessage[] {
  const messages: UiMessage[] = [];
  let turn: { encoder: TurnEncoder; message: UiMessage; steers: UiMessage[] } | undefined;
  const flush = () => {
    if (turn === undefined) return;
    messages.push(turn.message, ...turn.steers);
    turn = undefined;
  };
  for (const event of events) {
    if (event.type === "human_input" && opensTurn(event)) {
      flush();
      if (event.source === "user") messages.push(userMessage(event.inputId, event.text ?? ""));
      const messageId = turnMessageId(event.seq);
      turn = {
        encoder: new TurnEncoder({ messageId, endsAfter: Number.POSITIVE_INFINITY }),
        message: { id: messageId, role: "assistant", parts: [] },
        steers: [],
      };
      continue;
    }
    if (turn === undefined) continue;
    for (const chunk of turn.encoder.stored(event)) foldChunk(turn.message, chunk);
    if (event.type === "human_input" && event.source === "user" && event.delivery !== "applied")
      turn.steers.push(userMessage(event.inputId, event.text ?? ""));
  }
  flush();
  return messages;
}
