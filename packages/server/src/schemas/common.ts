/** Schemas shared by several resources: ids, the error body, usage, JSON values. */
import { parkReasonSchema } from "@sema-agent/core/protocol";
import { z } from "zod";
import { named } from "./registry.ts";

/**
 * Task, call, leg and input ids: UUIDs, child ids (`<parent>~<callId>`) and provider call ids. No
 * `/`, `\`, `%` or whitespace, and never starting with a dot, so an id can name nothing but itself.
 */
export const ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._~:-]{0,511}$/;

export const idSchema = z.string().regex(ID_PATTERN, "must be an id: letters, digits and ._~:- (not first)");

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

export const Usage = named(
  "Usage",
  z.object({
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cachedInputTokens: z.number().int().optional(),
    reasoningTokens: z.number().int().optional(),
  }),
);

export const TaskStatus = named(
  "TaskStatus",
  z.enum(["created", "running", "parked", "completed", "failed", "cancelled"]),
);

export const ParkReason = named(
  "ParkReason",
  // Core's own enum, so a reason added to the log's vocabulary is documented here too.
  parkReasonSchema,
);

export const TaskParams = z.strictObject({ taskId: idSchema });
export const ApprovalParams = z.strictObject({ taskId: idSchema, callId: idSchema });
