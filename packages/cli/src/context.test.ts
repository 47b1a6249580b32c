import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliIo, storeFlagText, storeLocation, UsageError } from "./context.ts";

const io = (env: Record<string, string> = {}): CliIo => ({
  stdout: { write: () => true },
  stderr: { write: () => true },
  env,
  cwd: "/work/project",
});

describe("storeLocation", () => {
  it("defaults to the embedded SQLite file under the working directory", () => {
    expect(storeLocation(io(), {})).toEqual({ kind: "sqlite", path: resolve("/work/project/.sema/sema.db") });
  });

  it("takes --store, then --db, then SEMA_STORE_URL, then SEMA_DB", () => {
    const env = { SEMA_STORE_URL: "postgres://db.internal/sema", SEMA_DB: "env.db" };
    expect(storeLocation(io(env), { store: "postgresql://a@b/c", db: "x.db" })).toEqual({
      kind: "postgres",
      url: "postgresql://a@b/c",
    });
    expect(storeLocation(io(env), { store: "s.db" })).toEqual({ kind: "sqlite", path: "/work/project/s.db" });
    expect(storeLocation(io(env), { db: "x.db" })).toEqual({ kind: "sqlite", path: "/work/project/x.db" });
    expect(storeLocation(io(env), {})).toEqual({ kind: "postgres", url: "postgres://db.internal/sema" });
    expect(storeLocation(io({ SEMA_DB: "env.db" }), {})).toEqual({ kind: "sqlite", path: "/work/project/env.db" });
  });

  it("refuses a SEMA_STORE_URL that is not a PostgreSQL URL", () => {
    expect(() => storeLocation(io({ SEMA_STORE_URL: "mysql://x" }), {})).toThrow(UsageError);
  });

  it("repeats the store flag in printed commands without a URL's credentials", () => {
    expect(storeFlagText({ db: "a.db" })).toBe(" --db a.db");
    expect(storeFlagText({ store: "postgres://u:secret@h/db" })).toBe(" --store <url>");
    expect(storeFlagText({})).toBe("");
  });
});
