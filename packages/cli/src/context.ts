/**
 * What every command shares: its input and output streams, the environment, and how to open the
 * store (the embedded default: one SQLite file, `.sema/sema.db` under the working directory).
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Readable } from "node:stream";
import { isSemaError, type Store } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";

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

export function dbPath(io: CliIo, flag: string | undefined): string {
  return resolve(io.cwd, flag ?? io.env.SEMA_DB ?? DEFAULT_DB);
}

export function openStore(path: string): Store {
  mkdirSync(dirname(path), { recursive: true });
  return new SqliteStore({ path });
}

/** A failure a person can act on: one line, and exit 2 for a usage or configuration mistake. */
export class UsageError extends Error {}

export function reportError(io: CliIo, error: unknown): number {
  if (error instanceof UsageError) {
    io.stderr.write(`sema: ${error.message}\n`);
    return 2;
  }
  if (isSemaError(error)) {
    io.stderr.write(`sema: ${error.message}\n`);
    return error.code === "InvalidInput" ? 2 : 1;
  }
  io.stderr.write(`sema: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}
