/**
 * Push configs record the token that registered them (issue 29, finding 6): every store keeps
 * `tokenId`, and a SQLite or PostgreSQL table made before the column existed gains it, its old
 * rows read back without one (they keep being delivered: no token to check).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "@sema-agent/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../../postgres/src/test-server.fixture.ts";
import { PostgresPushConfigStore } from "./postgres-push-config-store.ts";
import { MemoryPushConfigStore, type PushConfig, type PushConfigStore } from "./push-config-store.ts";
import { SqlitePushConfigStore } from "./sqlite-push-config-store.ts";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const OLD_TABLE = (name: string, textType: string, json: string, time: string, big: string, strict: string) =>
  `CREATE TABLE ${name} (task_id ${textType} NOT NULL, config_id ${textType} NOT NULL, principal ${textType} NOT NULL,
   url ${textType} NOT NULL, token ${textType} NOT NULL, authentication ${json}, created_at ${time} NOT NULL,
   delivered_seq ${big} NOT NULL, PRIMARY KEY (task_id, config_id))${strict}`;

const config = (id: string, extra: Partial<PushConfig> = {}): PushConfig => ({
  taskId: "t1",
  id,
  principal: "acme",
  url: "https://hooks.example.com/a",
  token: "",
  createdAt: `2026-12-01T00:00:0${id.length}.000Z`,
  deliveredSeq: 2,
  ...extra,
});

async function sqliteWithOldRow(): Promise<PushConfigStore> {
  const dir = mkdtempSync(join(tmpdir(), "sema-push-"));
  const path = join(dir, "sema.db");
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(path);
  db.exec(OLD_TABLE("server_a2a_push_configs", "TEXT", "TEXT", "TEXT", "INTEGER", " STRICT"));
  db.prepare("INSERT INTO server_a2a_push_configs VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
    "t1",
    "old",
    "acme",
    "https://hooks.example.com/a",
    "",
    null,
    "2026-12-01T00:00:00.000Z",
    2,
  );
  db.close();
  const store = new SqlitePushConfigStore({ path });
  cleanup.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

async function postgresWithOldRow(): Promise<PushConfigStore> {
  const schema = freshSchema();
  cleanup.push(() => dropSchema(schema));
  const tasks = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
  cleanup.push(() => tasks.close());
  const table = `"${schema}".server_a2a_push_configs`;
  await tasks.pool.query(OLD_TABLE(table, "text", "jsonb", "timestamptz", "bigint", ""));
  await tasks.pool.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
    "t1",
    "old",
    "acme",
    "https://hooks.example.com/a",
    "",
    null,
    "2026-12-01T00:00:00.000Z",
    2,
  ]);
  return new PostgresPushConfigStore({ pool: tasks.pool, schema });
}

async function memoryWithOldRow(): Promise<PushConfigStore> {
  const store = new MemoryPushConfigStore();
  await store.put(config("old", { createdAt: "2026-12-01T00:00:00.000Z" }));
  return store;
}

describe.each<[string, () => Promise<PushConfigStore>, boolean]>([
  ["memory", memoryWithOldRow, false],
  ["sqlite", sqliteWithOldRow, false],
  ["postgres", postgresWithOldRow, skip],
])("%s push config store and token ids", (_name, make, skipped) => {
  it.skipIf(skipped)("keeps a config's token id; a row from before reads back without one", async () => {
    const store = await make();
    const old = await store.get("t1", "old");
    expect(old).toEqual(config("old", { createdAt: "2026-12-01T00:00:00.000Z" }));
    expect(old !== undefined && "tokenId" in old).toBe(false);
    await store.put(config("new", { tokenId: "0123456789ab" }));
    expect((await store.get("t1", "new"))?.tokenId).toBe("0123456789ab");
    expect((await store.list("t1")).map((c) => [c.id, c.tokenId])).toEqual([
      ["old", undefined],
      ["new", "0123456789ab"],
    ]);
    // Replacing keeps the new registration's token.
    await store.put(config("new", { tokenId: "ba9876543210" }));
    expect((await store.all()).find((c) => c.id === "new")?.tokenId).toBe("ba9876543210");
    await store.close();
  });
});
