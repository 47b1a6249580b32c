/**
 * What the studio's picture scripts share (console-screenshots.ts, trace-screenshot.ts): a real
 * `sema serve` (the CLI from its sources, SQLite in a temporary folder, a scripted model, the file
 * tools over a workspace holding `notes.md`), its URL, first token and an API client, headless
 * Chromium launched offline, a poll with a deadline, and the cleanup of all of it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { workspaceName } from "../packages/cli/src/tools/workspaces.ts";
import { buildConsole } from "./build-console.ts";

const SEMA = fileURLToPath(new URL("../packages/cli/src/test-support/sema-node.ts", import.meta.url));
/** The Chromium binary: `SEMA_CHROMIUM`, else the system's. */
export const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";

/** Polls `check` every 50 ms until it returns something, for at most `ms`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A running `sema serve` for pictures: where it listens, its first token, a JSON client, and its end. */
export interface StudioServer {
  url: string;
  token: string;
  api<T>(path: string, body?: unknown): Promise<T>;
  /** Headless Chromium (launched once, on first use), closed by `close`. */
  browser(): Promise<Browser>;
  /** Stops the browser and the server, and removes the temporary folder. */
  close(): Promise<void>;
}

/**
 * `sema serve` in a temporary folder (its prefix `prefix`), the model scripted by `turns`, the
 * workspace of the first token's principal ("local") holding `notes.md` with `notes`.
 */
export async function serveStudio(prefix: string, turns: unknown, notes: string): Promise<StudioServer> {
  // The CLI runs from its sources: the studio's bundle is built from the modules as they are now.
  await buildConsole();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    server?.kill("SIGTERM");
    if (server !== undefined && server.exitCode === null) await new Promise((resolve) => server?.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    writeFileSync(join(dir, "turns.json"), JSON.stringify(turns));
    const workspace = join(dir, "workspaces", workspaceName("local"));
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, "notes.md"), notes);
    // Without this shell's OTEL_* variables: the pictures are of the console, not of an exporter.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
    const child = spawn(
      process.execPath,
      [SEMA, "serve", "--port", "0", "--workspaces", "workspaces", "--model", "script:turns.json"],
      { cwd: dir, env: { ...env, SEMA_STORE_URL: "", SEMA_DB: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    server = child;
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await until("sema serve", () => (/Bearer <token>/.test(output) ? true : undefined));
    const url = /serving (http:\/\/\S+)/.exec(output)?.[1] ?? "";
    const token = /\n\n {2}(\S+)\n\n/.exec(output)?.[1] ?? "";
    const api = async <T>(path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    return {
      url,
      token,
      api,
      async browser() {
        browser ??= await chromium.launch({
          executablePath: CHROMIUM,
          args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        });
        return browser;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
