/**
 * Records across connections: two stores on one file (each its own connection, and with
 * `writer: "thread"` its own writer thread), as two processes would share it. A put reads the
 * name's latest version and writes the next under SQLite's write lock, so of racing conditional
 * puts exactly one wins and the others learn the version now latest, and racing unconditional
 * puts all land, on consecutive versions.
 */
import { DatabaseSync } from "node:sqlite";
import { isSemaError } from "@sema-agent/core";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import type { SqliteWriter } from "./store-options.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const open: SqliteStore[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

/** Two stores on one fresh file, one with each writer when `writers` differ. */
function twoStores(writers: [SqliteWriter, SqliteWriter]): { stores: [SqliteStore, SqliteStore]; path: string } {
  const path = tempDb();
  const stores: [SqliteStore, SqliteStore] = [
    new SqliteStore({ path, writer: writers[0] }),
    new SqliteStore({ path, writer: writers[1] }),
  ];
  open.push(...stores);
  return { stores, path };
}

const key = { kind: "experiment", principal: "alice", name: "race" };

for (const writers of [
  ["main", "main"],
  ["thread", "thread"],
  ["main", "thread"],
] as const) {
  describe(`records on two stores of one file (writers ${writers.join(", ")})`, () => {
    it("lets exactly one of many racing conditional puts win, and tells the others the latest", async () => {
      const {
        stores: [a, b],
      } = twoStores([...writers]);
      for (let expectedVersion = 0; expectedVersion < 4; expectedVersion++) {
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? a : b).putRecord({ ...key, body: { round: expectedVersion, i }, expectedVersion }),
          ),
        );
        const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
        expect(won).toHaveLength(1);
        expect(won[0]?.version).toBe(expectedVersion + 1);
        for (const r of results) {
          if (r.status === "fulfilled") continue;
          expect(isSemaError(r.reason, "RecordConflict"), String(r.reason)).toBe(true);
          expect((r.reason as { details: unknown }).details).toEqual({
            kind: key.kind,
            name: key.name,
            expected: expectedVersion,
            actual: expectedVersion + 1,
          });
        }
        expect(await b.getRecord(key)).toEqual(won[0]);
      }
    });

    it("writes every one of many racing unconditional puts, on consecutive versions", async () => {
      const {
        stores: [a, b],
        path,
      } = twoStores([...writers]);
      const puts = 24;
      const written = await Promise.all(
        Array.from({ length: puts }, (_, i) => (i % 2 === 0 ? a : b).putRecord({ ...key, body: { i } })),
      );
      expect(written.map((r) => r.version).sort((x, y) => x - y)).toEqual(
        Array.from({ length: puts }, (_, i) => i + 1),
      );
      for (const record of written) expect(await a.getRecord({ ...key, version: record.version })).toEqual(record);
      const db = new DatabaseSync(path, { readOnly: true });
      const rows = db.prepare("SELECT count(*) AS n FROM records").get() as { n: number };
      db.close();
      expect(rows.n).toBe(puts);
    });
  });
}

describe("records of a SqliteStore", () => {
  it("keep a body as the text it was given, \\u0000 included, stamped by the store's clock, any version", async () => {
    const path = tempDb();
    const store = new SqliteStore({ path, now: () => Date.parse("2026-12-07T10:00:00.000Z") });
    open.push(store);
    const body = { text: "a\u0000b", n: 1.5e300, nested: [null, true, "é"] };
    const put = await store.putRecord({ ...key, body, meta: { size: 3 } });
    expect(put.createdAt).toBe("2026-12-07T10:00:00.000Z");
    const db = new DatabaseSync(path, { readOnly: true });
    const row = db.prepare("SELECT body, meta, created_at FROM records").get();
    db.close();
    expect({ ...row }).toEqual({ body: JSON.stringify(body), meta: '{"size":3}', created_at: put.createdAt });
    expect(await store.getRecord(key)).toEqual({
      ...key,
      version: 1,
      createdAt: put.createdAt,
      meta: { size: 3 },
      body,
    });
    expect(await store.getRecord({ ...key, version: 2 ** 40 })).toBeUndefined();
    await expect(store.putRecord({ ...key, body: 2, expectedVersion: 2 ** 40 })).rejects.toMatchObject({
      code: "RecordConflict",
    });
  });

  for (const writer of ["main", "thread"] as const) {
    it(`fail every call with StoreUnavailable once closed (writer ${writer})`, async () => {
      const store = new SqliteStore({ path: tempDb(), writer });
      open.push(store);
      await store.putRecord({ ...key, body: 1 });
      await store.close();
      for (const call of [
        store.putRecord({ ...key, body: 1 }),
        store.getRecord(key),
        store.listRecords({ kind: key.kind, principal: key.principal }),
      ])
        await expect(call).rejects.toMatchObject({ code: "StoreUnavailable" });
    });
  }
});
