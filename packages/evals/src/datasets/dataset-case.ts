/**
 * One case of a dataset (docs/guide/evals.md#datasets): the objective a task is started with,
 * what it should give, the files it comes with, the inputs people send it later, and free
 * metadata. A dataset is JSON Lines, one case a line; this schema checks each line.
 */
import { type JsonValue, jsonValueSchema } from "@sema-agent/core/protocol";
import { z } from "zod";

/** A case's id: a letter or digit, then letters, digits, `_ . : -`; at most 128 characters. */
export const caseIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, "a case id is a letter or digit, then letters, digits, _ . : or -");

/** An image or a file the objective comes with, inline as base64. */
export const caseAttachmentSchema = z.strictObject({
  mediaType: z.string().regex(/^[\w.+-]+\/[\w.+*-]+$/, "a media type such as image/png"),
  /** The bytes, base64 (standard alphabet). */
  data: z.string().min(1),
  /** Shown to the model for a file that is not an image. */
  name: z.string().min(1).max(255).optional(),
});

/**
 * A later input: `text` sent as a person on `source`'s lane with `carrier` (`steer`, the default,
 * reaches the running turn at its next step; `nextTurn` waits for the turn to end), once the task
 * has taken `afterTurn` model turns (0: before the first).
 */
export const caseInputSchema = z.strictObject({
  text: z.string().min(1),
  carrier: z.enum(["steer", "nextTurn"]).default("steer"),
  source: z.enum(["user", "supervisor"]).default("user"),
  afterTurn: z.number().int().min(0).max(10_000).default(0),
});

/** One line of a dataset. */
export const datasetCaseSchema = z.strictObject({
  id: caseIdSchema.optional(),
  /** The task's objective. */
  input: z.string().min(1, "input is the task's objective, and may not be empty"),
  /** What the task should give: text, or JSON for a structured answer. */
  expected: jsonValueSchema.optional(),
  attachments: z.array(caseAttachmentSchema).max(32).optional(),
  inputs: z.array(caseInputSchema).max(100).optional(),
  metadata: z.record(z.string(), jsonValueSchema).optional(),
});

/** A case as written in a file (defaults not yet applied). */
export type DatasetCaseInput = z.input<typeof datasetCaseSchema>;

/** A checked case: its id given or assigned, its inputs with their defaults. */
export interface DatasetCase {
  id: string;
  input: string;
  expected?: JsonValue;
  attachments?: z.infer<typeof caseAttachmentSchema>[];
  inputs?: z.infer<typeof caseInputSchema>[];
  metadata?: { [key: string]: JsonValue };
}

/** A case's later input, with its defaults applied. */
export type CaseInput = z.infer<typeof caseInputSchema>;
