/**
 * The body `DefaultChatTransport` posts (AI SDK 5 and later): the chat `id`, the whole `messages`
 * list as the client holds it, the `trigger`, the `messageId` of a message being answered, and the
 * transport's `body` extras Sema knows (`metadata`, recorded on the task it creates). Of the
 * messages, Sema reads the last: a person's new text, or the assistant message carrying the
 * client's approval responses; the rest is the log's already.
 */
import { z } from "zod";
import { clientIdSchema, idSchema, JsonValue } from "../schemas/common.ts";
import { named } from "../schemas/registry.ts";

const TextPart = z.looseObject({ type: z.literal("text"), text: z.string() });

/** A part the client echoes back: only its type is read, except the parts below. */
const AnyPart = z.looseObject({ type: z.string().min(1) });

/** A tool part the client answered with `addToolApprovalResponse`. */
export const ApprovalResponsePart = z.looseObject({
  type: z.string().regex(/^(tool-.+|dynamic-tool)$/),
  toolCallId: z.string(),
  state: z.literal("approval-responded"),
  approval: z.looseObject({
    id: idSchema,
    approved: z.boolean(),
    reason: z.string().optional(),
    /** Sema's digest of the call's input, as `tool-approval-request` sent it. */
    signature: z.string().optional(),
  }),
});

const UiMessageInput = z.looseObject({
  id: z.string().min(1).max(512),
  role: z.enum(["system", "user", "assistant"]),
  metadata: z.unknown().optional(),
  parts: z.array(AnyPart).max(10_000),
});

export const ChatRequest = named(
  "ChatRequest",
  z.strictObject({
    id: clientIdSchema.describe(
      "The chat id: the task's id (created on first use). `~` is reserved (the ids of sub-agent tasks).",
    ),
    messages: z.array(UiMessageInput).min(1).max(10_000),
    trigger: z.enum(["submit-message", "regenerate-message"]),
    messageId: z.string().optional(),
    metadata: z
      .record(z.string(), JsonValue)
      .optional()
      .describe("Recorded on the task a first message creates (ignored on later requests)."),
  }),
  "What the AI SDK's `DefaultChatTransport` sends (`useChat`'s default).",
);
export type ChatRequestBody = z.output<typeof ChatRequest>;
export type ChatMessageInput = z.output<typeof UiMessageInput>;

/** The text of a person's message: its text parts, joined; a file part is refused (not supported yet). */
export function userText(message: ChatMessageInput, path: string): { text: string } | { unsupported: string } {
  const texts: string[] = [];
  for (const [index, part] of message.parts.entries()) {
    const text = TextPart.safeParse(part);
    if (text.success) texts.push(text.data.text);
    else if (part.type !== "step-start") return { unsupported: `${path}.parts.${index}: a ${part.type} part` };
  }
  return { text: texts.join("\n\n") };
}
