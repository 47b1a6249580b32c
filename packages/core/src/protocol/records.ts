/**
 * Records: small named documents a principal keeps beside its tasks, such as an evaluation's
 * datasets and experiments (docs/guide/evals.md). Each put of a name adds a version; nothing is
 * overwritten, so an experiment that names a dataset version reads exactly the cases it ran.
 */
import { z } from "zod";
import { type JsonValue, jsonValueSchema } from "./json.ts";

/** What kind of record: lowercase letters, digits and `-`, starting with a letter (`dataset`, `experiment`). */
export const recordKindSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, "a record kind is lowercase letters, digits and -, starting with a letter");

/** A record's name within its kind: a letter or digit, then letters, digits, `_ . : -`; at most 128. */
export const recordNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/,
    "a name is a letter or digit, then letters, digits, _ . : or -, at most 128 characters",
  );

/** A small JSON object listed with a record (its size, a digest, a count), so a list need not read bodies. */
export const recordMetaSchema = z.record(z.string(), jsonValueSchema);

/** One version of a record as stored: who owns it, which version, when, and its body. */
export interface StoredRecord {
  kind: string;
  principal: string;
  name: string;
  /** 1 for the first put of the name, then one more for each. */
  version: number;
  /** When the store wrote it (ISO 8601). */
  createdAt: string;
  meta: { [key: string]: JsonValue };
  body: JsonValue;
}

/** A record as a list shows it: everything but the body. */
export type RecordListing = Omit<StoredRecord, "body">;

/** What `putRecord` writes. */
export interface PutRecordInput {
  kind: string;
  principal: string;
  name: string;
  body: JsonValue;
  meta?: { [key: string]: JsonValue };
  /**
   * Write only if the name's latest version is this one (`0`: only if the name is new);
   * `RecordConflict` otherwise. Absent: always add a version.
   */
  expectedVersion?: number;
}

/** Which records `listRecords` lists: one principal's of one kind, the latest version of each name, by name. */
export interface ListRecordsOptions {
  kind: string;
  principal: string;
  /** At most this many (default 100, at most 1,000). */
  limit?: number;
  /** From `nextCursor` of the previous page. */
  cursor?: string;
}

/** A page of records. */
export interface RecordPage {
  records: RecordListing[];
  nextCursor?: string;
}
