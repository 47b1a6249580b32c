/**
 * Records on a real PostgreSQL server across two stores, each with its own pool, standing for two
 * nodes: the primary key decides every race for a version, so of racing conditional puts exactly
 * one wins and the others learn the version now latest, and racing unconditional puts all land,
 * on consecutive versions, none lost or doubled.
 */
import { isSemaError } from "@sema-agent/core";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

describe.skipIf(skip)("records (PostgresStore)", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** Two nodes on one fresh schema. */
  async function twoNodes(): Promise<{ stores: [PostgresStore, PostgresStore]; schema: string }> {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const stores = await Promise.all([
      PostgresStore.open({ connectionString: POSTGRES_URL, schema }),
      PostgresStore.open({ connectionString: POSTGRES_URL, schema }),
    ]);
    for (const store of stores) cleanup.push(() => store.close());
    return { stores, schema };
  }

  const key = { kind: "experiment", principal: "alice", name: "race" };

  it("lets exactly one of many conditional puts racing from two nodes win, and tells the others the latest", async () => {
    const {
      stores: [a, b],
    } = await twoNodes();
    for (let expectedVersion = 0; expectedVersion < 5; expectedVersion++) {
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

  it("writes every one of many unconditional puts racing from two nodes, on consecutive versions", async () => {
    const {
      stores: [a, b],
      schema,
    } = await twoNodes();
    const puts = 24;
    const written = await Promise.all(
      Array.from({ length: puts }, (_, i) => (i % 2 === 0 ? a : b).putRecord({ ...key, body: { i } })),
    );
    expect(written.map((r) => r.version).sort((x, y) => x - y)).toEqual(Array.from({ length: puts }, (_, i) => i + 1));
    // Each version holds the body of the put that was told it got it.
    for (const record of written) expect(await a.getRecord({ ...key, version: record.version })).toEqual(record);
    expect((await b.getRecord(key))?.version).toBe(puts);
    expect((await a.listRecords({ kind: key.kind, principal: key.principal })).records).toEqual([
      expect.objectContaining({ name: key.name, version: puts }),
    ]);
    const rows = await withClient((client) =>
      client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".records`),
    );
    expect(Number(rows.rows[0]?.n)).toBe(puts);
  });

  it("keeps a body as the text it was given, \\u0000 included, takes any version, and fails once closed", async () => {
    const {
      stores: [a],
      schema,
    } = await twoNodes();
    const body = { text: "a\u0000b", n: 1.5e300, nested: [null, true, "é"] };
    await a.putRecord({ ...key, body, meta: { size: 3 } });
    const [row] = (
      await withClient((client) =>
        client.query<{ body: string; meta: string }>(`SELECT body, meta FROM "${schema}".records`),
      )
    ).rows;
    expect(row).toEqual({ body: JSON.stringify(body), meta: '{"size":3}' });
    expect((await a.getRecord(key))?.body).toEqual(body);
    // Versions past the integer column's range are simply not there.
    expect(await a.getRecord({ ...key, version: 2 ** 40 })).toBeUndefined();
    await expect(a.putRecord({ ...key, body: 2, expectedVersion: 2 ** 40 })).rejects.toMatchObject({
      code: "RecordConflict",
    });
    await a.close();
    for (const call of [
      a.putRecord({ ...key, body: 1 }),
      a.getRecord(key),
      a.listRecords({ kind: key.kind, principal: key.principal }),
    ])
      await expect(call).rejects.toMatchObject({ code: "StoreUnavailable" });
  });
});
