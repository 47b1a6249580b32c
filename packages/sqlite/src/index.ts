/**
 * `@sema-agent/sqlite`: Sema's embedded default store, one SQLite file through `node:sqlite`.
 *
 * @module @sema-agent/sqlite
 */
export { MIGRATIONS, type Migration, SCHEMA_VERSION } from "./schema.ts";
export { SqliteStore } from "./sqlite-store.ts";
export type { SqliteCheckpoints, SqliteStoreOptions, SqliteWriter, WriteStats } from "./store-options.ts";
