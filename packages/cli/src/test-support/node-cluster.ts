/**
 * Sema processes on one store for the many-node tests: `start` spawns `sema serve` or
 * `sema worker` (test-support/sema-node.ts) on the store, `cli` runs a command in process on it,
 * `stop` kills every process started. `until` polls with a deadline (these are real processes:
 * a deadline takes the place of a fixed sleep).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { CliIo } from "../context.ts";
import { main } from "../main.ts";

const NODE_ENTRY = fileURLToPath(new URL("./sema-node.ts", import.meta.url));

/** One spawned process and what it printed. */
export interface ClusterNode {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it gives a value; fails after `ms`, naming what it waited for. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Processes and commands on the store at `url`, run from `configDir` (its sema.config.*). */
export function nodeCluster(options: { url: string; configDir: string; env?: Record<string, string> }) {
  const nodes: ClusterNode[] = [];
  return {
    nodes,
    start(name: string, args: string[]): ClusterNode {
      const child = spawn(process.execPath, [NODE_ENTRY, ...args, "--store", options.url], {
        cwd: options.configDir,
        env: { ...process.env, ...options.env, SEMA_STORE_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const node = { name, child, output: () => output, exited };
      nodes.push(node);
      return node;
    },
    /** Runs `sema <args>` in this process on the store; expects exit 0 and gives its stdout. */
    async cli(args: string[]): Promise<string> {
      let out = "";
      const io: CliIo = {
        stdout: { write: (t: string) => (out += t) },
        stderr: { write: () => true },
        env: {},
        cwd: options.configDir,
      };
      expect(await main([...args, "--store", options.url], io)).toBe(0);
      return out;
    },
    /** Kills every process started and waits for them to exit. */
    async stop(): Promise<void> {
      for (const node of nodes) node.child.kill("SIGKILL");
      await Promise.all(nodes.map((node) => node.exited));
    },
  };
}
