/**
 * The export file (`sema export`, `exportTask`): versioned JSON Lines, one object per line, each
 * with its `kind`. A `header` first; then, per task, a `task` line and its stored events in seq
 * order (`event`); then the bytes of every image and file the events reference (`blob`, included,
 * never referenced); last an `end` line with the counts and the SHA-256 of every line before it,
 * so a file cut short or edited by hand is refused whole (docs/guide/time-travel.md).
 */
import { z } from "zod";

/** Schema version of the export format. */
export const EXPORT_VERSION = 1;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "a SHA-256 digest in lowercase hex");
const nonEmpty = z.string().min(1);

/** The first line: what the file is, its version, when it was written and which task is its root. */
export const exportHeaderSchema = z.strictObject({
  kind: z.literal("header"),
  format: z.literal("sema-task-export"),
  v: z.literal(EXPORT_VERSION),
  exportedAt: z.iso.datetime(),
  /** The task exported; the others in the file are its children (`--with-children`). */
  rootTaskId: nonEmpty,
  /** Always `included`: the file carries the bytes of every blob its events reference. */
  blobs: z.literal("included"),
});

/** A task's section begins: its id, principal and parent, as they were in the exporting store. */
export const exportTaskSchema = z.strictObject({
  kind: z.literal("task"),
  taskId: nonEmpty,
  principal: nonEmpty,
  parentTaskId: nonEmpty.exactOptional(),
  /** How many event lines follow for this task. */
  events: z.number().int().positive(),
});

/** One stored event of the current task, stamps included (`taskId`, `seq`, `at`). */
export const exportEventSchema = z.strictObject({
  kind: z.literal("event"),
  event: z.record(z.string(), z.unknown()),
});

/** The bytes of one image or file, base64 (RFC 4648 §4), under the SHA-256 that names them. */
export const exportBlobSchema = z.strictObject({
  kind: z.literal("blob"),
  digest: sha256Hex,
  base64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64 text"),
});

/** The last line: the counts, and the SHA-256 of every line before it (each with its newline). */
export const exportEndSchema = z.strictObject({
  kind: z.literal("end"),
  tasks: z.number().int().positive(),
  events: z.number().int().positive(),
  blobs: z.number().int().nonnegative(),
  sha256: sha256Hex,
});

/** Any line of an export file. */
export const exportLineSchema = z.discriminatedUnion("kind", [
  exportHeaderSchema,
  exportTaskSchema,
  exportEventSchema,
  exportBlobSchema,
  exportEndSchema,
]);

/** The header line (see {@link exportHeaderSchema}). */
export type ExportHeader = z.infer<typeof exportHeaderSchema>;
/** A task line (see {@link exportTaskSchema}). */
export type ExportTaskLine = z.infer<typeof exportTaskSchema>;
/** A blob line (see {@link exportBlobSchema}). */
export type ExportBlobLine = z.infer<typeof exportBlobSchema>;
/** The end line (see {@link exportEndSchema}). */
export type ExportEnd = z.infer<typeof exportEndSchema>;
/** Any line of an export file (see {@link exportLineSchema}). */
export type ExportLine = z.infer<typeof exportLineSchema>;
