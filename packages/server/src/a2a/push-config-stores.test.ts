/** The push-config stores, one contract: memory, SQLite (a real file), PostgreSQL (the local server). */
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

const kinds: Array<[string, () => Promise<PushConfigStore>, boolean]> = [
  ["memory", async () => new MemoryPushConfigStore(), false],
  [
    "sqlite",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "sema-push-"));
      const store = new SqlitePushConfigStore({ path: join(dir, "sema.db") });
      cleanup.push(async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return store;
    },
    false,
  ],
  [
    "postgres",
    async () => {
      const schema = freshSchema();
      cleanup.push(() => dropSchema(schema));
      const tasks = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      cleanup.push(() => tasks.close());
      return new PostgresPushConfigStore({ pool: tasks.pool, schema });
    },
    skip,
  ],
];

const config = (taskId: string, id: string, extra: Partial<PushConfig> = {}): PushConfig => ({
  taskId,
  id,
  principal: "acme",
  url: "https://hooks.example.com/a",
  token: "secret",
  createdAt: `2026-12-01T00:00:0${id.length}.000Z`,
  deliveredSeq: 0,
  ...extra,
});

describe.each(kinds)("%s push config store", (_name, make, skipped) => {
  it.skipIf(skipped)("puts, gets, lists per task, advances only forward, deletes", async () => {
    const store = await make();
    await store.put(config("t1", "a", { authentication: { scheme: "Bearer", credentials: "x" } }));
    await store.put(config("t1", "bb"));
    await store.put(config("t2", "a", { deliveredSeq: 4 }));
    expect(await store.get("t1", "a")).toEqual(
      config("t1", "a", { authentication: { scheme: "Bearer", credentials: "x" } }),
    );
    expect(await store.get("t1", "zz")).toBeUndefined();
    expect((await store.list("t1")).map((c) => c.id)).toEqual(["a", "bb"]);
    expect((await store.all()).length).toBe(3);
    await store.advance("t2", "a", 9);
    await store.advance("t2", "a", 7);
    expect((await store.get("t2", "a"))?.deliveredSeq).toBe(9);
    // A put replaces (the same id registered again).
    await store.put(config("t1", "bb", { url: "https://hooks.example.com/b" }));
    expect((await store.get("t1", "bb"))?.url).toBe("https://hooks.example.com/b");
    expect(await store.delete("t1", "a")).toBe(true);
    expect(await store.delete("t1", "a")).toBe(false);
    expect((await store.list("t1")).map((c) => c.id)).toEqual(["bb"]);
    await store.close();
  });
});
