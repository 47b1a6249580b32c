import { describe, expect, it } from "vitest";
import { DatabaseSync, loadNodeSqlite } from "./node-sqlite.ts";

describe("node:sqlite", () => {
  it("loads on this Node.js", () => {
    expect(typeof DatabaseSync).toBe("function");
  });

  it("says which Node.js it needs where node:sqlite is absent (Node 20), instead of a TypeError", () => {
    const message =
      "@sema-agent/sqlite needs Node.js >= 22.13 (it uses node:sqlite); this is Node.js 20.20.2. Upgrade Node.js, or use @sema-agent/postgres or MemoryStore.";
    expect(() => loadNodeSqlite(() => undefined, "20.20.2")).toThrow(message);
    expect(() => loadNodeSqlite(undefined, "20.20.2")).toThrow(message);
  });
});
