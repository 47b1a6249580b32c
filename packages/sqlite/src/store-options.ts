/**
 * A `SqliteStore`'s options, checked where they are given (the writer; group commit is
 * checked by the store-kit), and the write counts it reports.
 */

import { ConfigError } from "@sema-agent/core/protocol";
import type { GroupCommitOptions, StoreClock, StoreSizeLimits } from "@sema-agent/core/store-kit";

/** Where a `SqliteStore` runs its writes: see `SqliteStoreOptions.writer`. */
export type SqliteWriter = "main" | "thread";

/** Where a `SqliteStore` runs its WAL checkpoints: see `SqliteStoreOptions.checkpoints`. */
export type SqliteCheckpoints = "background" | "inline";

/**
 * Where a `SqliteStore` keeps its database, how often its watchers poll for other connections'
 * appends, and how long a call waits for a write lock; `now` sets its clock.
 */
export interface SqliteStoreOptions extends StoreClock, StoreSizeLimits {
  /** The database file (created if missing), or `":memory:"` for a private in-memory database. */
  path: string;
  /** How often watchers look for appends made through another connection. Default 25 ms. */
  pollMs?: number;
  /** How long a call waits for another connection's write lock before `StoreUnavailable`. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * Group commit: the writes of concurrent legs within one tick share one transaction, each still
   * atomic and conditional on its own (see docs/guide/stores.md). Default on (`{ windowMs: 0,
   * maxBatch: 256 }`); `false` makes every write its own transaction. A bad value is a `ConfigError`.
   */
  groupCommit?: GroupCommitOptions | boolean;
  /**
   * Where the writes run. `"main"` (the default): on the calling thread, whose event loop each
   * group commit holds while SQLite works (statements, COMMIT, the WAL checkpoints inside it).
   * `"thread"`: on a worker thread of the store's own, which owns the write connection and runs
   * the same group commits, so the main thread only posts writes and hears back after each COMMIT
   * (reads stay on the calling thread's connection, and see every committed write). It costs a
   * thread hop per write; it pays when many concurrent tasks keep the main thread busy (see
   * docs/guide/stores.md). `"thread"` needs a database file, not `":memory:"`. A bad value is a
   * `ConfigError`.
   */
  writer?: SqliteWriter;
  /**
   * Where WAL checkpoints run (copying committed pages from the log back into the database).
   * `"background"` (the default for a database file): once the store has made 4,096 writes, a thread
   * of its own checkpoints whenever something was committed, so no COMMIT on the calling thread
   * stops for one; the store's connection still checkpoints itself if the log passes 10,000 pages
   * (the thread fell behind or died). `"inline"`: SQLite's default, inside the COMMIT that takes
   * the log past 1,000 pages (9-30 ms each at 10,000 live legs). With `writer: "thread"` the
   * checkpoints already run on the writer thread, and this is ignored. `":memory:"` has no log:
   * `"background"` there is a `ConfigError`, as is any other value.
   */
  checkpoints?: SqliteCheckpoints;
}

/** Whether `options` want background checkpoints, or a `ConfigError` naming what is wrong. */
export function checkpointsOf(options: SqliteStoreOptions): SqliteCheckpoints {
  const memory = isPrivateMemory(options.path);
  const { checkpoints = memory ? "inline" : "background" } = options;
  if (checkpoints !== "background" && checkpoints !== "inline") {
    throw new ConfigError("SqliteStore", [{ path: "checkpoints", message: 'must be "background" or "inline"' }]);
  }
  if (checkpoints === "background" && memory) {
    throw new ConfigError("SqliteStore", [
      {
        path: "checkpoints",
        message: `is "background", which needs a database file: ${JSON.stringify(options.path)} has no write-ahead log`,
      },
    ]);
  }
  return checkpoints;
}

/** A path SQLite opens as a database private to one connection, in memory. */
function isPrivateMemory(path: string): boolean {
  return path === ":memory:" || path === "" || path.startsWith("file::memory:");
}

/** The writer of `options`, or a `ConfigError` naming what is wrong. */
export function writerOf(options: SqliteStoreOptions): SqliteWriter {
  const { writer = "main", path } = options;
  if (writer !== "main" && writer !== "thread") {
    throw new ConfigError("SqliteStore", [{ path: "writer", message: 'must be "main" or "thread"' }]);
  }
  if (writer === "thread" && isPrivateMemory(path)) {
    throw new ConfigError("SqliteStore", [
      {
        path: "writer",
        message: `is "thread", which needs a database file: ${JSON.stringify(path)} is private to one connection`,
      },
    ]);
  }
  return writer;
}

/** How many writes a store made and in how many transactions: group commit makes the second smaller. */
export interface WriteStats {
  /** Writes (appends, creations, lease and snapshot changes, records) committed or refused. */
  writes: number;
  /** Transactions committed. */
  commits: number;
  /** With group commit: the longest a batch held the event loop, BEGIN to COMMIT, in ms. */
  longestBatchMs: number;
  /** Checkpoints the store's checkpoint thread ran (`checkpoints: "background"`), 0 before it started. */
  checkpoints: number;
}
