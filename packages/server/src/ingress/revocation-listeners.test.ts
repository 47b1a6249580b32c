/**
 * Every token store tells its revocation listeners before `revoke` returns (issue 29, finding 6):
 * with the token's id, whether revoked by id or by the secret, once, and never after unsubscribing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "@sema-agent/postgres";
import { afterAll, describe, expect, it, vi } from "vitest";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "../../../postgres/src/test-server.fixture.ts";
import { MemoryTokenStore } from "./memory-token-store.ts";
import { PostgresTokenStore } from "./postgres-token-store.ts";
import { RevocationListeners } from "./revocation-listeners.ts";
import { SqliteTokenStore } from "./sqlite-token-store.ts";
import type { TokenStore } from "./token-store.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-revocations-"));
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  rmSync(dir, { recursive: true, force: true });
});

async function postgres(): Promise<TokenStore> {
  const schema = freshSchema();
  cleanup.push(() => dropSchema(schema));
  const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
  cleanup.push(() => store.close());
  return new PostgresTokenStore({ pool: store.pool, schema });
}

const kinds: [string, boolean, () => Promise<TokenStore>][] = [
  ["MemoryTokenStore", false, async () => new MemoryTokenStore()],
  ["SqliteTokenStore", false, async () => new SqliteTokenStore({ path: join(dir, `t-${Math.random()}.db`) })],
  ["PostgresTokenStore", skip, postgres],
];

describe.each(kinds)("%s.onRevoke", (_name, skipped, make) => {
  it.skipIf(skipped)("tells each listener the token id before revoke returns, once", async () => {
    const tokens = await make();
    const a = await tokens.create({ principal: "acme", actorId: "alice" });
    const b = await tokens.create({ principal: "acme", actorId: "bob" });
    const told: string[] = [];
    const unsubscribe = tokens.onRevoke?.((tokenId) => told.push(tokenId));
    expect(unsubscribe).toBeTypeOf("function");
    expect(await tokens.revoke(a.record.tokenId)).toBe(true);
    expect(told).toEqual([a.record.tokenId]);
    // Again: no live token, nothing told.
    expect(await tokens.revoke(a.record.tokenId)).toBe(false);
    // By the secret: the id is told.
    expect(await tokens.revoke(b.token)).toBe(true);
    expect(told).toEqual([a.record.tokenId, b.record.tokenId]);
    unsubscribe?.();
    const c = await tokens.create({ principal: "acme", actorId: "carol" });
    expect(await tokens.revoke(c.record.tokenId)).toBe(true);
    expect(told).toHaveLength(2);
    await tokens.close();
  });
});

describe("RevocationListeners", () => {
  it("a listener that throws stops neither the others nor the revocation", () => {
    const listeners = new RevocationListeners();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const told: string[] = [];
    listeners.subscribe(() => {
      throw new Error("boom");
    });
    listeners.subscribe((id) => told.push(id));
    listeners.emit("t1");
    expect(told).toEqual(["t1"]);
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
  });
});
