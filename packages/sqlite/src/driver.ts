/**
 * `@sema-agent/sqlite/driver`: `node:sqlite`'s `DatabaseSync`, loaded the way this package loads
 * it (on Node 22, without the "SQLite is an experimental feature" warning), and `openConnection`
 * for code that keeps its own table beside the store — the server's token and A2A push tables —
 * so that importing it first does not print the warning the store itself avoids, and its
 * connection waits for the store's write lock like the store's own.
 *
 * @module @sema-agent/sqlite/driver
 */
import { withConnection } from "./connection.ts";
import { DatabaseSync } from "./node-sqlite.ts";

export { DatabaseSync };

/** How {@link openConnection} opens a connection. */
export interface OpenConnectionOptions {
  /** How long a statement waits for another connection's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** SQL run once the connection is open, e.g. `CREATE TABLE IF NOT EXISTS …`. */
  setup?: string;
}

/**
 * A connection to the SQLite file at `path` (created if missing), in WAL mode and waiting for
 * other connections' write locks, with `setup` run on it; closed again if any of that fails.
 */
export function openConnection(path: string, options: OpenConnectionOptions = {}): DatabaseSync {
  return withConnection(path, options.busyTimeoutMs ?? 5000, (db) => {
    if (options.setup !== undefined) db.exec(options.setup);
    return db;
  });
}
