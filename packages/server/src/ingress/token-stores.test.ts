import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSemaError, speakerLabel } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { ensureFirstToken } from "./first-token.ts";
import { MemoryTokenStore } from "./memory-token-store.ts";
import { SqliteTokenStore } from "./sqlite-token-store.ts";
import { hashToken, type TokenStore } from "./token-store.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-tokens-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const sqlitePath = () => join(dir, `tokens-${++files}.db`);

const kinds: [string, () => TokenStore][] = [
  ["MemoryTokenStore", () => new MemoryTokenStore()],
  ["SqliteTokenStore", () => new SqliteTokenStore({ path: sqlitePath() })],
];

describe.each(kinds)("%s", (_name, make) => {
  it("mints a token once and verifies it to its principal, actor and roles", async () => {
    const tokens = make();
    const { token, record } = await tokens.create({
      principal: "acme",
      actorId: "alice@acme.test",
      roles: ["supervisor", "approver", "approver"],
    });
    expect(token).toMatch(/^sema_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ principal: "acme", actorId: "alice@acme.test", roles: ["approver", "supervisor"] });
    expect(await tokens.verify(token)).toEqual(record);
    expect(await tokens.verify(`${token}x`)).toBeUndefined();
    expect(await tokens.verify(token.replace(/.$/, (c) => (c === "A" ? "B" : "A")))).toBeUndefined();
    expect(await tokens.verify("")).toBeUndefined();
    await tokens.close();
  });

  it("keeps a token's quotas on its record, and refuses ones that fail the schema", async () => {
    const tokens = make();
    const { token, record } = await tokens.create({
      principal: "acme",
      quotas: { tokensPerDay: 500, concurrentTasks: 2 },
    });
    expect(record.quotas).toEqual({ tokensPerDay: 500, concurrentTasks: 2 });
    expect((await tokens.verify(token))?.quotas).toEqual({ tokensPerDay: 500, concurrentTasks: 2 });
    const plain = await tokens.create({ principal: "acme" });
    expect(plain.record.quotas).toBeUndefined();
    const listed = new Map((await tokens.list()).map((r) => [r.tokenId, r.quotas]));
    expect(listed).toEqual(
      new Map([
        [record.tokenId, { tokensPerDay: 500, concurrentTasks: 2 }],
        [plain.record.tokenId, undefined],
      ]),
    );
    await expect(tokens.create({ principal: "acme", quotas: { tokensPerDai: 1 } } as never)).rejects.toThrow(
      /tokensPerDai/,
    );
    await tokens.close();
  });

  it("refuses an unknown key by name (actor for actorId) and stores nothing", async () => {
    const tokens = make();
    const error = await tokens.create({ principal: "acme", actor: "alice" } as never).catch((thrown) => thrown);
    expect(isSemaError(error, "ConfigError")).toBe(true);
    expect(error.message).toBe('tokens.create: unknown key "actor": remove it or fix the spelling');
    await expect(tokens.create({ principal: 7 } as never)).rejects.toThrow(
      "tokens.create: principal must be a string, got a number",
    );
    await expect(tokens.create({ actorId: "alice" } as never)).rejects.toThrow(
      "tokens.create: principal is missing: set it to a string",
    );
    expect(await tokens.list()).toEqual([]);
    await tokens.close();
  });

  it("refuses an actor id longer than a speaker label shows, so no two verified actors share a label", async () => {
    const tokens = make();
    const prefix = "a".repeat(64);
    const { record } = await tokens.create({ principal: "acme", actorId: prefix });
    expect(speakerLabel({ id: record.actorId, verified: true })).toBe(`[from "${prefix}"]`);
    await expect(tokens.create({ principal: "acme", actorId: `${prefix}1` })).rejects.toThrow(/invalid actor id/);
    await expect(tokens.create({ principal: "acme", actorId: `${prefix}2` })).rejects.toThrow(/invalid actor id/);
    // A principal may be longer, but not when it is also the actor id.
    await expect(tokens.create({ principal: "p".repeat(100) })).rejects.toThrow(/invalid actor id/);
    expect((await tokens.create({ principal: "p".repeat(100), actorId: "bot" })).record.principal).toHaveLength(100);
    await tokens.close();
  });

  it("defaults the actor to the principal and has no roles unless given", async () => {
    const tokens = make();
    const { record } = await tokens.create({ principal: "ops" });
    expect(record).toMatchObject({ actorId: "ops", roles: [] });
    await tokens.close();
  });

  it("revokes by id or by the token itself, for good", async () => {
    const tokens = make();
    const a = await tokens.create({ principal: "acme" });
    const b = await tokens.create({ principal: "acme" });
    expect(await tokens.revoke(a.record.tokenId)).toBe(true);
    expect(await tokens.revoke(b.token)).toBe(true);
    expect(await tokens.revoke(a.record.tokenId)).toBe(false);
    expect(await tokens.revoke("nothing")).toBe(false);
    expect(await tokens.verify(a.token)).toBeUndefined();
    expect(await tokens.verify(b.token)).toBeUndefined();
    const listed = await tokens.list();
    expect(listed.map((r) => r.revokedAt === undefined)).toEqual([false, false]);
    await tokens.close();
  });

  it("refuses names that could carry markup or line breaks, and unknown roles", async () => {
    const tokens = make();
    await expect(tokens.create({ principal: "a\nb" })).rejects.toThrow(/principal/);
    await expect(tokens.create({ principal: "acme", actorId: '"]<x>' })).rejects.toThrow(/actor/);
    await expect(tokens.create({ principal: "acme", roles: ["admin" as "approver"] })).rejects.toThrow(/role/);
    expect(await tokens.list()).toEqual([]);
    await tokens.close();
  });

  it("creates the first token for `local` with every role, once", async () => {
    const tokens = make();
    const first = await ensureFirstToken(tokens);
    expect(first?.record).toMatchObject({
      principal: "local",
      actorId: "local",
      roles: ["approver", "metrics", "supervisor"],
    });
    expect(await ensureFirstToken(tokens)).toBeUndefined();
    await tokens.close();
  });
});

describe("SqliteTokenStore on the task store's file", () => {
  it("keeps only hashes, shares the file with SqliteStore, and survives a reopen", async () => {
    const path = sqlitePath();
    const store = new SqliteStore({ path });
    const tokens = new SqliteTokenStore({ path });
    const { token, record } = await tokens.create({ principal: "acme", actorId: "alice" });
    await store.close();
    await tokens.close();

    const bytes = readFileSync(path).toString("latin1") + readWal(path);
    expect(bytes).not.toContain(token.slice(18));
    const reopened = new SqliteTokenStore({ path });
    expect(await reopened.verify(token)).toEqual(record);
    const again = new SqliteStore({ path });
    expect((await again.listTasks({ principal: "acme" })).tasks).toEqual([]);
    await again.close();
    await reopened.close();
    expect(await hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});

function readWal(path: string): string {
  try {
    return readFileSync(`${path}-wal`).toString("latin1");
  } catch {
    return "";
  }
}
