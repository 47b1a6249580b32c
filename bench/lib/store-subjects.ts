/**
 * The stores a benchmark measures side by side, each opened fresh and removed after: a
 * MemoryStore, a SQLite file in a temporary folder, a PostgreSQL schema of its own (dropped on
 * close) on `SEMA_POSTGRES_URL` or the local server the tests use.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, type Store } from "@sema-agent/core";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import pg from "pg";

/** The PostgreSQL server benchmarks use, as the tests do. */
export const POSTGRES_URL = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A store opened for a benchmark, and how to close and remove it. */
export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
}

/** A store a benchmark measures: its name in the tables, and how to open a fresh one. */
export interface StoreSubject {
  name: string;
  open(): Promise<OpenedStore>;
}

/** The three stores by key (`memory`, `sqlite`, `postgres`); `tag` names their temporary folders and schemas. */
export function storeSubjects(tag: string): Record<"memory" | "sqlite" | "postgres", StoreSubject> {
  return {
    memory: {
      name: "MemoryStore",
      open: async () => {
        const store = new MemoryStore();
        return { store, close: () => store.close() };
      },
    },
    sqlite: {
      name: "SqliteStore (file)",
      open: async () => {
        const dir = mkdtempSync(join(tmpdir(), `sema-bench-${tag}-`));
        const store = new SqliteStore({ path: join(dir, "bench.db") });
        return {
          store,
          async close() {
            await store.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
    postgres: {
      name: "PostgresStore",
      open: async () => {
        const schema = `sema_bench_${tag}_${randomBytes(5).toString("hex")}`;
        const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
        return {
          store,
          async close() {
            await store.close();
            const client = new pg.Client({ connectionString: POSTGRES_URL });
            await client.connect();
            await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
            await client.end();
          },
        };
      },
    },
  };
}

/** Why PostgreSQL cannot be used (as the tests probe it), or undefined when it answers. */
export async function postgresUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1500 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}
