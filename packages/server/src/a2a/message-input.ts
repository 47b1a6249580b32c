/**
 * An A2A `Message` read as Sema input: text parts are text, a raw or URL part with an `image/`
 * media type is an image part and any other a file part (core's content ingress checks their
 * sizes and types and stores the bytes as blobs), and a DataPart `{ callId, decision, digest,
 * reason? }` is an answer to a parked approval. Anything else is refused by name: nothing of a
 * message is silently dropped.
 */
import type { Message } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import { z } from "zod";
import { FILENAME_MAX_CHARS } from "../schemas/common.ts";

/** An approval decision carried by a DataPart, checked like `DecideApprovalRequest`. */
export const DecisionPart = z.strictObject({
  callId: z.string().min(1).max(200),
  decision: z.enum(["approve", "deny"]),
  digest: z.string().regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256"),
  reason: z.string().optional(),
  scope: z.enum(["call", "tool-for-task"]).optional(),
});
export type DecisionPart = z.infer<typeof DecisionPart>;

/** A content part as `/v1` bodies carry it (bytes base64-encoded). */
export type InputPart =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mediaType: string }
  | { type: "file"; data: string; mediaType: string; filename?: string };

/** What a message asks for: its text (possibly empty), its content parts, any approval decisions. */
export interface MessageInput {
  text: string;
  /** The text, images and files in order; only text parts when the message has no attachment. */
  parts: InputPart[];
  /** Whether an image or a file came with it (then `parts` is the input, not `text`). */
  attachments: boolean;
  decisions: DecisionPart[];
}

function mediaPart(data: string, mediaType: string, filename: string, index: number): InputPart {
  if (mediaType === "")
    throw new ContentTypeNotSupportedError(`params.message.parts.${index}: a file part needs its mediaType`);
  // The same cap as `/v1`'s ContentPart: a name is shown and stored, never a payload of its own.
  if (filename.length > FILENAME_MAX_CHARS)
    throw new RequestMalformedError(
      `params.message.parts.${index}.filename is ${filename.length} characters, over the limit of ${FILENAME_MAX_CHARS}`,
    );
  if (mediaType.startsWith("image/")) return { type: "image", data, mediaType };
  return { type: "file", data, mediaType, ...(filename === "" ? {} : { filename }) };
}

/** Decode a message's parts; a malformed or unsupported part is an A2A error naming it. */
export function readMessage(message: Message | undefined): MessageInput {
  if (message === undefined) throw new RequestMalformedError("params.message is required");
  if (message.parts.length === 0) throw new RequestMalformedError("params.message.parts is empty");
  const texts: string[] = [];
  const parts: InputPart[] = [];
  const decisions: DecisionPart[] = [];
  message.parts.forEach((part, index) => {
    const content = part.content;
    if (content?.$case === "text") {
      texts.push(content.value);
      parts.push({ type: "text", text: content.value });
    } else if (content?.$case === "raw") {
      parts.push(mediaPart(Buffer.from(content.value).toString("base64"), part.mediaType, part.filename, index));
    } else if (content?.$case === "url") {
      throw new ContentTypeNotSupportedError(
        `params.message.parts.${index}: a url part is not fetched: send the file's bytes (raw)`,
      );
    } else if (content?.$case === "data") {
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
        `params.message.parts.${index}: a part must be text, a file's bytes (raw) or an approval DataPart`,
      );
  });
  const attachments = parts.some((part) => part.type !== "text");
  return { text: texts.join("\n\n"), parts, attachments, decisions };
}
