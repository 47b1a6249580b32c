/**
 * What every command shares: its input and output streams, the environment, and how to open the
 * store (the embedded default: one SQLite file, `.sema/sema.db` under the working directory).
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Readable } from "node:stream";
import { isSemaError, type Store } from "@sema-agent/core";
import type { TokenStore } from "@sema-agent/server";
import type { PushConfigStore } from "@sema-agent/server/a2a";
import { terminalSafe } from "./terminal-safe.ts";

export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  stdin?: Readable & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted when the person presses Ctrl-C. */
  interrupt?: AbortSignal;
  /** Ask the person a question (present only when there is a person at a terminal). */
  prompt?: (question: string) => Promise<string | undefined>;
}

export const DEFAULT_DB = ".sema/sema.db";

/** The flags every command that opens the store accepts. */
export const STORE_OPTIONS = {
  db: { type: "string" },
  store: { type: "string" },
} as const;

export interface StoreFlags {
  db?: string | undefined;
  store?: string | undefined;
}

/**
 * Where the store is: `--store` (a `postgres://` URL or a SQLite file), `--db` (a file), then
 * `SEMA_STORE_URL`, `SEMA_DB`, and the embedded default `.sema/sema.db`.
 */
export type StoreLocation = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export function storeLocation(io: CliIo, flags: StoreFlags): StoreLocation {
  const flag = flags.store ?? flags.db;
  const url = io.env.SEMA_STORE_URL;
  if (flag === undefined && url !== undefined && url !== "") {
    if (!POSTGRES_URL.test(url)) throw new UsageError(`SEMA_STORE_URL must be a postgres:// URL, got ${url}`);
    return { kind: "postgres", url };
  }
  const given = flag ?? io.env.SEMA_DB;
  if (given !== undefined && POSTGRES_URL.test(given)) return { kind: "postgres", url: given };
  return { kind: "sqlite", path: resolve(io.cwd, given === undefined || given === "" ? DEFAULT_DB : given) };
}

export function dbPath(io: CliIo, flag: string | undefined): string {
  const location = storeLocation(io, { db: flag });
  return location.kind === "sqlite" ? location.path : DEFAULT_DB;
}

/** The store flags to repeat in a command printed for the person to run next. */
export function storeFlagText(flags: StoreFlags): string {
  if (flags.store !== undefined)
    return ` --store ${flags.store.includes("@") && POSTGRES_URL.test(flags.store) ? "<url>" : flags.store}`;
  return flags.db === undefined ? "" : ` --db ${flags.db}`;
}

/** A store opened for a command, with what else lives beside it. */
export interface Backend {
  store: Store;
  /** Where it is, for messages (a URL shown without its password). */
  label: string;
  /**
   * Server tokens kept beside the store, shared by every node using it: the token store of the
   * store's own database, loaded on first use (a worker never loads one).
   */
  tokens(): Promise<TokenStore>;
  /** A2A push-notification configs, in the store's own database too, loaded on first use. */
  pushConfigs(): Promise<PushConfigStore>;
  close(): Promise<void>;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}

/** `make`, called once on first use; `close` closes what it made, if anything. */
function once<T extends { close(): Promise<void> }>(
  make: () => Promise<T>,
): { get: () => Promise<T>; close: () => Promise<void> } {
  let made: Promise<T> | undefined;
  return {
    get: () => (made ??= make()),
    close: async () => {
      await (await made?.catch(() => undefined))?.close();
    },
  };
}

export async function openBackend(io: CliIo, flags: StoreFlags): Promise<Backend> {
  const location = storeLocation(io, flags);
  // Each database's modules are loaded only when it is the one asked for: the embedded default
  // never loads a PostgreSQL driver, and a PostgreSQL node never loads node:sqlite.
  if (location.kind === "sqlite") {
    mkdirSync(dirname(location.path), { recursive: true });
    const { SqliteStore } = await import("@sema-agent/sqlite");
    const store = new SqliteStore({ path: location.path });
    const tokens = once(async () => {
      const { SqliteTokenStore } = await import("@sema-agent/server/sqlite-tokens");
      return new SqliteTokenStore({ path: location.path });
    });
    const pushConfigs = once(async () => {
      const { SqlitePushConfigStore } = await import("@sema-agent/server/sqlite-a2a-push");
      return new SqlitePushConfigStore({ path: location.path });
    });
    return {
      store,
      label: location.path,
      tokens: tokens.get,
      pushConfigs: pushConfigs.get,
      async close() {
        await pushConfigs.close();
        await tokens.close();
        await store.close();
      },
    };
  }
  const { PostgresStore } = await import("@sema-agent/postgres");
  const store = await PostgresStore.open({ connectionString: location.url });
  const tokens = once(async () => {
    const { PostgresTokenStore } = await import("@sema-agent/server/postgres-tokens");
    return new PostgresTokenStore({ pool: store.pool, schema: store.schema });
  });
  const pushConfigs = once(async () => {
    const { PostgresPushConfigStore } = await import("@sema-agent/server/postgres-a2a-push");
    return new PostgresPushConfigStore({ pool: store.pool, schema: store.schema });
  });
  return {
    store,
    label: redact(location.url),
    tokens: tokens.get,
    pushConfigs: pushConfigs.get,
    async close() {
      await pushConfigs.close();
      await tokens.close();
      await store.close();
    },
  };
}

/** Open the store the flags and environment name; the caller closes it. */
export async function openStore(io: CliIo, flags: StoreFlags): Promise<Store> {
  return (await openBackend(io, flags)).store;
}

/** A failure a person can act on: one line, and exit 2 for a usage or configuration mistake. */
export class UsageError extends Error {}

export function reportError(io: CliIo, error: unknown): number {
  // Messages can quote a task's text (a tool name, a model's error): printed terminal-safe.
  if (error instanceof UsageError) {
    io.stderr.write(`sema: ${terminalSafe(error.message)}\n`);
    return 2;
  }
  if (isSemaError(error)) {
    io.stderr.write(`sema: ${terminalSafe(error.message)}\n`);
    // A usage error of another kind: the input or the configuration given, not the run.
    return error.code === "InvalidInput" || error.code === "ConfigError" ? 2 : 1;
  }
  io.stderr.write(`sema: ${terminalSafe(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
  return 1;
}
