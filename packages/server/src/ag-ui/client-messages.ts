/**
 * What Sema reads of the conversation an AG-UI client sends with every run. The log is the
 * conversation's truth, so only two things are taken from it: the user messages that trail the
 * last message of any other role (what the person just said) and the tool messages (the results
 * of frontend tool calls). Everything else the client holds, Sema already has.
 */

import { badRequest } from "../http-error.ts";
import type { AgUiMessage as Message } from "./run-input.ts";

/** A user message the client just sent. */
export interface NewUserMessage {
  id: string;
  text: string;
  /** Where it is in the body, for errors. */
  path: string;
}

/** A frontend tool call's result, from a tool message. */
export interface ClientToolResult {
  toolCallId: string;
  output: string;
  /** The client reported the tool failed (`error` on the tool message). */
  failed: boolean;
}

/** The text of a message's content; a part that is not text is refused (Sema takes text over AG-UI). */
function textOf(content: Message["content"], path: string): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw badRequest(`${path}: must be a string or content parts`, path);
  return content
    .map((part, index) => {
      if (part.type !== "text")
        throw badRequest(
          `${path}.${index}: only text parts are taken over AG-UI (got ${part.type})`,
          `${path}.${index}`,
        );
      return part.text;
    })
    .join("\n\n");
}

/** The user messages after the last message of another role, in order. */
export function newUserMessages(messages: readonly Message[]): NewUserMessage[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role === "user") start--;
  return messages.slice(start).map((message, offset) => {
    const path = `body.messages.${start + offset}.content`;
    return { id: message.id, text: textOf(message.content, path), path };
  });
}

/** Every tool message's result, by the call it answers (the last one wins). */
export function clientToolResults(messages: readonly Message[]): Map<string, ClientToolResult> {
  const results = new Map<string, ClientToolResult>();
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const output = textOf(message.content, `body.messages.${index}.content`);
    const failed = message.error !== undefined;
    results.set(message.toolCallId, {
      toolCallId: message.toolCallId,
      output: failed ? `${message.error}${output === "" ? "" : `\n${output}`}` : output,
      failed,
    });
  });
  return results;
}
