/**
 * The rules every store applies to records (`Store.putRecord`, docs/guide/stores.md#records):
 * kinds and names of their form, a body of JSON under the size limit, a page of at most 1,000
 * listings, and a cursor that is the last name listed. Written once so every store refuses the
 * same input with the same message.
 */
import { InvalidInputError, RecordConflictError } from "../protocol/errors.ts";
import { isJsonValue, type JsonValue } from "../protocol/json.ts";
import {
  type ListRecordsOptions,
  type PutRecordInput,
  recordKindSchema,
  recordNameSchema,
} from "../protocol/records.ts";

/** The largest body a record holds, as JSON text (UTF-16 code units): 32 MiB. */
export const MAX_RECORD_BODY_CHARS = 32 * 1024 * 1024;
/** The largest `meta`, as JSON text. */
export const MAX_RECORD_META_CHARS = 16 * 1024;

function checkField(schema: typeof recordKindSchema, value: unknown, what: string): string {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidInputError(`${what}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

function checkPrincipal(principal: unknown): string {
  if (typeof principal !== "string" || principal.length === 0)
    throw new InvalidInputError("a record's principal is a non-empty string");
  return principal;
}

/** The kind and name of a query, checked. */
export function checkRecordKey(query: { kind: string; principal: string; name: string; version?: number }): void {
  checkField(recordKindSchema, query.kind, "kind");
  checkPrincipal(query.principal);
  checkField(recordNameSchema, query.name, "name");
  if (query.version !== undefined && (!Number.isSafeInteger(query.version) || query.version < 1))
    throw new InvalidInputError(`a record version is a positive integer, got ${String(query.version)}`);
}

/** A put, checked; its body and meta as JSON text, as the store keeps them. */
export function checkPutRecord(input: PutRecordInput): { bodyJson: string; metaJson: string } {
  checkRecordKey(input);
  if (!isJsonValue(input.body)) throw new InvalidInputError("a record's body must be JSON");
  const meta = input.meta ?? {};
  if (typeof meta !== "object" || meta === null || Array.isArray(meta) || !isJsonValue(meta as JsonValue))
    throw new InvalidInputError("a record's meta must be a JSON object");
  const bodyJson = JSON.stringify(input.body);
  const metaJson = JSON.stringify(meta);
  if (bodyJson.length > MAX_RECORD_BODY_CHARS)
    throw new InvalidInputError(`a record's body is at most ${MAX_RECORD_BODY_CHARS} characters of JSON`);
  if (metaJson.length > MAX_RECORD_META_CHARS)
    throw new InvalidInputError(`a record's meta is at most ${MAX_RECORD_META_CHARS} characters of JSON`);
  const expected = input.expectedVersion;
  if (expected !== undefined && (!Number.isSafeInteger(expected) || expected < 0))
    throw new InvalidInputError(`expectedVersion is 0 or a positive integer, got ${String(expected)}`);
  return { bodyJson, metaJson };
}

/** `RecordConflict` unless the latest version is the one the put expected. */
export function checkExpectedVersion(
  input: Pick<PutRecordInput, "kind" | "name" | "expectedVersion">,
  latest: number,
): void {
  if (input.expectedVersion !== undefined && input.expectedVersion !== latest)
    throw new RecordConflictError(input.kind, input.name, input.expectedVersion, latest);
}

/** A list request, checked: its limit (default 100, at most 1,000) and the name it starts after. */
export function recordPageRequest(options: ListRecordsOptions): { limit: number; after?: string } {
  checkField(recordKindSchema, options.kind, "kind");
  checkPrincipal(options.principal);
  const limit = options.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    throw new InvalidInputError(`limit is from 1 to 1000, got ${String(limit)}`);
  if (options.cursor === undefined) return { limit };
  return { limit, after: checkField(recordNameSchema, options.cursor, "cursor") };
}
