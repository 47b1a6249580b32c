/**
 * What a delegation records in the task's log (`ToolContext.checkpoint`) and reads back on a
 * re-run after a crash: first the message it is about to send (so a crash mid-send can be told
 * apart from no send), then the remote task's id and state once the remote agent has answered.
 */
import type { JsonValue } from "@sema-agent/core";
import { z } from "zod";

const sending = z.strictObject({
  v: z.literal(1),
  phase: z.literal("sending"),
  /** The id of the message being sent: the remote task's history names it once it arrived. */
  messageId: z.string().min(1),
  /** Empty only for an answer to a remote task sent without a context (the task's own is used). */
  contextId: z.string(),
  /** The remote task this message continues (an answer to its `input-required`). */
  continues: z.string().min(1).optional(),
});

const accepted = z.strictObject({
  v: z.literal(1),
  phase: z.literal("accepted"),
  messageId: z.string().min(1),
  contextId: z.string(),
  remoteTaskId: z.string().min(1),
  /** The remote task's last state seen, lower-case (`working`). */
  state: z.string(),
  /** The status message's text that came with it, cut short: for consoles reading the log. */
  text: z.string().optional(),
});

const checkpointSchema = z.discriminatedUnion("phase", [sending, accepted]);

/** One delegation checkpoint. */
export type DelegationCheckpoint = z.infer<typeof checkpointSchema>;

/** The longest status text kept in a checkpoint. */
export const CHECKPOINT_TEXT_CHARS = 500;

/** Read a recorded checkpoint: undefined when there is none, `"unreadable"` when it is not ours. */
export function readCheckpoint(value: JsonValue | undefined): DelegationCheckpoint | "unreadable" | undefined {
  if (value === undefined) return undefined;
  const parsed = checkpointSchema.safeParse(value);
  return parsed.success ? parsed.data : "unreadable";
}

/** A checkpoint as the JSON the log stores (optional fields left out, not `undefined`). */
export function checkpointJson(checkpoint: DelegationCheckpoint): JsonValue {
  return JSON.parse(JSON.stringify(checkpoint)) as JsonValue;
}
