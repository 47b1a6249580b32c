/**
 * `@sema-agent/postgres`: Sema's store on PostgreSQL, for many API nodes and workers on one database.
 *
 * @module @sema-agent/postgres
 */

export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.ts";
export { MIGRATIONS, type Migration, SCHEMA_VERSION } from "./schema.ts";
