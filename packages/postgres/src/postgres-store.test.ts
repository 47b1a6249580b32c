import type { Store } from "@sema-agent/core";
import { runStoreConformance } from "@sema-agent/core/testing/conformance";
import * as vitest from "vitest";
import { describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, unreachable, withClient } from "./test-server.fixture.ts";

const schemas = new WeakMap<Store, string>();

describe.skipIf(skip)("PostgresStore against a real server", () => {
  it("reaches the server (SEMA_REQUIRE_POSTGRES=1 makes an unreachable one a failure)", () => {
    expect(unreachable, `no PostgreSQL at ${POSTGRES_URL}`).toBeUndefined();
  });

  // Group commit is on by default (above); the contract holds with it off too.
  runStoreConformance("PostgresStore (group commit off)", {
    test: vitest,
    create: async () => {
      const schema = freshSchema();
      const store = await PostgresStore.open({
        connectionString: POSTGRES_URL,
        schema,
        pollMs: 100,
        groupCommit: false,
      });
      schemas.set(store, schema);
      return store;
    },
    destroy: async (store) => {
      await store.close();
      const schema = schemas.get(store);
      if (schema !== undefined) await dropSchema(schema);
    },
  });

  runStoreConformance("PostgresStore", {
    test: vitest,
    create: async () => {
      const schema = freshSchema();
      const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema, pollMs: 100 });
      schemas.set(store, schema);
      return store;
    },
    createLimited: async (limits) => {
      const schema = freshSchema();
      const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema, pollMs: 100, ...limits });
      schemas.set(store, schema);
      return store;
    },
    destroy: async (store) => {
      await store.close();
      const schema = schemas.get(store);
      if (schema !== undefined) await dropSchema(schema);
    },
    // A schema written by newer code must be refused with a typed error, not misread.
    openCorrupt: async () => {
      const schema = freshSchema();
      await withClient(async (client) => {
        await client.query(`CREATE SCHEMA "${schema}"`);
        await client.query(
          `CREATE TABLE "${schema}".sema_schema_migrations (version integer PRIMARY KEY, name text NOT NULL)`,
        );
        await client.query(`INSERT INTO "${schema}".sema_schema_migrations VALUES (999, 'from the future')`);
      });
      try {
        return await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      } finally {
        await dropSchema(schema);
      }
    },
  });
});
