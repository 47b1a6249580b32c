/**
 * An A2A `Message` read as Sema input: its text parts are the text (joined by a blank line, as
 * core joins content parts), and a DataPart `{ callId, decision, digest, reason? }` is an answer
 * to a parked approval. Any other part (files, raw bytes, other data) is refused by name: nothing
 * of a message is silently dropped.
 */
import type { Message } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import { z } from "zod";

/** An approval decision carried by a DataPart, checked like `DecideApprovalRequest`. */
export const DecisionPart = z.strictObject({
  callId: z.string().min(1).max(200),
  decision: z.enum(["approve", "deny"]),
  digest: z.string().regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256"),
  reason: z.string().optional(),
  scope: z.enum(["call", "tool-for-task"]).optional(),
});
export type DecisionPart = z.infer<typeof DecisionPart>;

/** What a message asks for: text (possibly empty) and any approval decisions. */
export interface MessageInput {
  text: string;
  decisions: DecisionPart[];
}

/** Decode a message's parts; a malformed or unsupported part is an A2A error naming it. */
export function readMessage(message: Message | undefined): MessageInput {
  if (message === undefined) throw new RequestMalformedError("params.message is required");
  if (message.parts.length === 0) throw new RequestMalformedError("params.message.parts is empty");
  const texts: string[] = [];
  const decisions: DecisionPart[] = [];
  message.parts.forEach((part, index) => {
    const content = part.content;
    if (content?.$case === "text") texts.push(content.value);
    else if (content?.$case === "data") {
      const parsed = DecisionPart.safeParse(content.value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new RequestMalformedError(
          `params.message.parts.${index}: a DataPart must be an approval decision { callId, decision, digest, reason? }` +
            (issue === undefined ? "" : ` (${[...issue.path].join(".") || "data"}: ${issue.message})`),
        );
      }
      decisions.push(parsed.data);
    } else
      throw new ContentTypeNotSupportedError(
        `params.message.parts.${index}: only text parts and approval DataParts are accepted`,
      );
  });
  return { text: texts.join("\n\n"), decisions };
}
