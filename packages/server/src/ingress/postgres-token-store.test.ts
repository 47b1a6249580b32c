/**
 * The server's token store on the PostgreSQL task store's pool: what every API node of a
 * deployment shares, so a token minted on one node authenticates on all.
 */
import { PostgresStore } from "@sema-agent/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "../../../postgres/src/test-server.fixture.ts";
import { ensureFirstToken } from "./first-token.ts";
import { PostgresTokenStore } from "./postgres-token-store.ts";

describe.skipIf(skip)("PostgresTokenStore", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  let schema = "";
  async function nodes(n: number): Promise<PostgresTokenStore[]> {
    schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const stores = await Promise.all(
      Array.from({ length: n }, () => PostgresStore.open({ connectionString: POSTGRES_URL, schema })),
    );
    for (const store of stores) cleanup.push(() => store.close());
    return stores.map((store) => new PostgresTokenStore({ pool: store.pool, schema }));
  }

  it("verifies on every node a token minted on one, and revokes it everywhere", async () => {
    const [a, b, c] = await nodes(3);
    if (a === undefined || b === undefined || c === undefined) throw new Error("three nodes");
    const { token, record } = await a.create({ principal: "acme", actorId: "alice", roles: ["approver"] });
    expect(record).toMatchObject({ principal: "acme", actorId: "alice", roles: ["approver"] });
    expect(await b.verify(token)).toEqual(record);
    expect(await c.verify(`${token}x`)).toBeUndefined();
    expect(await b.revoke(token)).toBe(true);
    expect(await a.verify(token)).toBeUndefined();
    expect(await c.revoke(record.tokenId)).toBe(false);
    const [listed] = await c.list();
    expect(listed?.revokedAt).toBeDefined();
    await expect(a.create({ principal: "a\nb" })).rejects.toThrow(/principal/);
    // An unknown key is refused by name, in create and createFirst alike, before anything is stored.
    const unknown = 'tokens.create: unknown key "actor": remove it or fix the spelling';
    await expect(a.create({ principal: "acme", actor: "alice" } as never)).rejects.toThrow(unknown);
    await expect(a.createFirst({ principal: "acme", actor: "alice" } as never)).rejects.toThrow(unknown);
    expect(await a.list()).toHaveLength(1);
  });

  it("keeps a token's quotas on its record, read by every node", async () => {
    const [a, b] = await nodes(2);
    if (a === undefined || b === undefined) throw new Error("two nodes");
    const { token, record } = await a.create({ principal: "acme", quotas: { costUsdPerMonth: 2.5 } });
    expect(record.quotas).toEqual({ costUsdPerMonth: 2.5 });
    expect((await b.verify(token))?.quotas).toEqual({ costUsdPerMonth: 2.5 });
    const plain = await b.create({ principal: "acme" });
    expect(plain.record.quotas).toBeUndefined();
    expect(new Map((await a.list()).map((r) => [r.tokenId, r.quotas]))).toEqual(
      new Map([
        [record.tokenId, { costUsdPerMonth: 2.5 }],
        [plain.record.tokenId, undefined],
      ]),
    );
  });

  it("stores only the hash, and makes the first token once", async () => {
    const [tokens] = await nodes(1);
    if (tokens === undefined) throw new Error("one node");
    const first = await ensureFirstToken(tokens);
    expect(first?.record).toMatchObject({ principal: "local", roles: ["approver", "metrics", "supervisor"] });
    expect(await ensureFirstToken(tokens)).toBeUndefined();
    const secret = first?.token.slice(18) ?? "";
    const dump = await withClient(async (client) => {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}".server_tokens t`);
      return rows.rows.map((r) => r.row).join("\n");
    });
    expect(dump).toContain(first?.record.tokenId ?? "?");
    expect(dump).not.toContain(secret);
  });

  it("mints exactly one first token when several servers start on an empty table at once", async () => {
    const stores = await nodes(4);
    // Every server has its table ready, so all four decide at the same moment.
    await Promise.all(stores.map((tokens) => tokens.list()));
    const created = await Promise.all(stores.map((tokens) => ensureFirstToken(tokens)));
    expect(created.filter((c) => c !== undefined)).toHaveLength(1);
    expect(await stores[0]?.list()).toHaveLength(1);
    // A table that had tokens (all revoked, even) gets no first token again.
    const [first] = created.filter((c) => c !== undefined);
    await stores[1]?.revoke(first?.record.tokenId ?? "");
    expect(await ensureFirstToken(stores[2] as PostgresTokenStore)).toBeUndefined();
  });
});
