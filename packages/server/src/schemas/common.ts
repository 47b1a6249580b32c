/** Schemas shared by several resources: ids, the error body, usage, JSON values. */
import { parkReasonSchema, taskStatusSchema, usageSchema } from "@sema-agent/core/protocol";
import { z } from "zod";
import { named } from "./registry.ts";

/**
 * Task, call, leg and input ids: UUIDs, child ids (`<parent>~<callId>`) and provider call ids. No
 * `/`, `\`, `%` or whitespace, and never starting with a dot, so an id can name nothing but itself.
 */
export const ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._~:-]{0,511}$/;

export const idSchema = z.string().regex(ID_PATTERN, "must be an id: letters, digits and ._~:- (not first)");

/**
 * An id a client chooses for a task it creates (an AG-UI thread, a chat): an id without `~`. The
 * harness gives a sub-agent task the id `<parent>~<callId>`, so that form is reserved: no client
 * can create, ahead of a delegation, the task that delegation will look for (issue 29, finding 2).
 */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._:-]{0,511}$/;

/** What a 400 says of an id that does not match {@link CLIENT_ID_PATTERN}. */
export const CLIENT_ID_RULE =
  "must be an id: letters, digits and ._:- (not first); ~ is reserved for the ids of sub-agent tasks";

export const clientIdSchema = z.string().regex(CLIENT_ID_PATTERN, CLIENT_ID_RULE);

export const JsonValue = named("JsonValue", z.json(), "Any JSON value.");

export const ErrorBody = named(
  "ErrorBody",
  z.object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), JsonValue).optional(),
    }),
  }),
  "Every error response: a stable code, a message for people, and details (the failing path for a 400).",
);

// Core's own schemas, so a count or a status added to the log's vocabulary is documented here too.
export const Usage = named("Usage", usageSchema);

export const TaskStatus = named("TaskStatus", taskStatusSchema);

export const ParkReason = named(
  "ParkReason",
  // Core's own enum, so a reason added to the log's vocabulary is documented here too.
  parkReasonSchema,
);

export const TaskParams = z.strictObject({ taskId: idSchema });
export const ApprovalParams = z.strictObject({ taskId: idSchema, callId: idSchema });
export const BlobParams = z.strictObject({
  taskId: idSchema,
  digest: z.string().regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256"),
});

const base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/\s]*={0,2}\s*$/, "must be base64 (standard alphabet)")
  .describe("The bytes, base64-encoded (standard alphabet, padding optional).");
const mediaType = z.string().regex(/^[\w.+-]+\/[\w.+*-]+$/, "must be a media type such as image/png");

/** The longest `filename` a file part may carry, on `/v1` and on A2A alike. */
export const FILENAME_MAX_CHARS = 255;

export const ContentPart = named(
  "ContentPart",
  z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("text"), text: z.string() }),
    z.strictObject({
      type: z.literal("image"),
      data: base64,
      mediaType: mediaType.describe("An image media type (image/png, image/jpeg, image/webp, image/gif)."),
    }),
    z.strictObject({
      type: z.literal("file"),
      data: base64,
      mediaType: mediaType.describe("The file's media type, e.g. application/pdf."),
      filename: z.string().max(FILENAME_MAX_CHARS).exactOptional(),
    }),
  ]),
  "One part of an objective or input: text (sanitized and attributed like a string), or an image or a file (stored once by its SHA-256, sent to the model as data, never as instructions).",
);

/** A string, or content parts (text, images, files). */
export function textOrParts(what: string, text: z.ZodString = z.string()) {
  return z.union([
    text.describe(`${what} Sanitized at the ingress; over the cap is a 413.`),
    z
      .array(ContentPart)
      .min(1)
      .max(100)
      .describe(
        `${what} As content parts: the text parts are joined by a blank line and capped like a string; image and file parts are capped by \`maxPartBytes\` each and \`maxContentBytes\` together (413 above).`,
      ),
  ]);
}
