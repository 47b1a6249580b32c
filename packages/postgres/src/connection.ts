/**
 * What a failure from `pg` means for the port: a unique violation is a lost race (the caller maps
 * it to `SeqConflict` or `TaskExists`); everything else the database or the connection throws is
 * `StoreUnavailable`, retryable, because the harness retries with backoff whatever the cause.
 */
import { isSemaError } from "@sema-agent/core";
import { StoreUnavailableError } from "@sema-agent/core/protocol";

/** SQLSTATE of a unique-key violation. */
export const UNIQUE_VIOLATION = "23505";

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/**
 * Programming errors stay what they are (so bugs are not hidden behind a retryable code); any
 * other failure — a refused or terminated connection, a server error, a timeout — is storage.
 */
export function toStoreError(error: unknown, where: string): unknown {
  if (isSemaError(error)) return error;
  if (error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`PostgreSQL store ${where}: ${message}`, error);
}

/** Quote a schema name as an identifier; only plain lower-case names are accepted. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new StoreUnavailableError(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  }
  return `"${schema}"`;
}
