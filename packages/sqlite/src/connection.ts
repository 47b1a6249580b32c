/** Opening the database file: connection settings, migration, statements, and what counts as a SQLite failure. */
import { isSemaError } from "@sema-agent/core";
import { StoreUnavailableError } from "@sema-agent/core/protocol";
import { DatabaseSync } from "./node-sqlite.ts";
import { migrate } from "./schema.ts";
import { Statements } from "./statements.ts";

/** node:sqlite raises `ERR_SQLITE_ERROR` for engine failures and `ERR_INVALID_STATE` on a closed handle. */
export function isSqliteFailure(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return code === "ERR_SQLITE_ERROR" || code === "ERR_INVALID_STATE";
}

/** The typed form of a failure of the store on `path`: SQLite's own become `StoreUnavailable`, the rest stay. */
export function storeError(path: string, error: unknown): unknown {
  if (isSemaError(error) || !isSqliteFailure(error)) return error;
  return new StoreUnavailableError(`SQLite store ${path}: ${error.message}`, error);
}

/**
 * Open `path` (creating it if missing) with the settings every connection to the file shares —
 * a wait of `busyTimeoutMs` for another connection's write lock, WAL — then `setup` on it. Throws
 * what SQLite or `setup` threw, with the handle closed.
 */
export function withConnection<T>(path: string, busyTimeoutMs: number, setup: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path);
  try {
    // Set first, so that every statement below already waits for another process's lock.
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
    // On a new, empty file only, and before WAL is set (it takes effect only then): deleted
    // tasks' pages can then be given back by an incremental vacuum. On an existing file the
    // pragma would rewrite the header (a commit other connections see), so it is left alone; an
    // older file keeps its mode until a full VACUUM.
    const pages = db.prepare("PRAGMA page_count").get() as { page_count: number } | undefined;
    if (pages?.page_count === 0) db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    // WAL: readers never block the writer, and a commit appends to the log instead of rewriting pages.
    db.exec("PRAGMA journal_mode = WAL");
    return setup(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Open the store's connection to `path`, migrate the schema and prepare the statements. Throws
 * what SQLite or `migrate` threw, with the handle closed.
 */
export function openDatabase(
  path: string,
  busyTimeoutMs: number,
  now: () => number,
): { db: DatabaseSync; statements: Statements } {
  return withConnection(path, busyTimeoutMs, (db) => {
    // NORMAL syncs only at checkpoints: a crash of the process loses nothing, a power cut may
    // lose the last commits (never corrupts the file).
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db, now);
    return { db, statements: new Statements(db) };
  });
}
