/**
 * `@sema-agent/sqlite/driver`: `node:sqlite`'s `DatabaseSync`, loaded the way this package loads
 * it (on Node 22, without the "SQLite is an experimental feature" warning). For code that opens
 * its own connection beside the store — a token table in the same file, say — so that importing
 * it first does not print the warning the store itself avoids.
 *
 * @module @sema-agent/sqlite/driver
 */
export { DatabaseSync } from "./node-sqlite.ts";
