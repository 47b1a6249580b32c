/**
 * The published reference server `@modelcontextprotocol/server-everything`, installed as a
 * devDependency and run with this Node (never `npx`, which could download at test time).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { McpStdioServer } from "../options.ts";

/** Its bin script, resolved from node_modules. */
export const EVERYTHING_BIN = fileURLToPath(
  import.meta.resolve("@modelcontextprotocol/server-everything/dist/index.js"),
);

/**
 * Preloaded into the server: copies every message the server reads on stdin to its stderr, so a
 * test can see exactly what the client put on the wire (a `notifications/cancelled`, for one).
 * It wraps `emit` rather than adding a listener, which would start the stream flowing before the
 * server listens and lose the first messages.
 */
const STDIN_TAP = `const emit = process.stdin.emit;
let pending = "";
process.stdin.emit = function (event, ...args) {
  if (event === "data") {
    const lines = (pending + String(args[0])).split("\\n");
    pending = lines.pop();
    for (const line of lines) process.stderr.write("[stdin] " + line + "\\n");
  }
  return emit.call(this, event, ...args);
};`;

/** The JSON-RPC messages a tapped server read, from its stderr so far (a partial last line waits). */
export function tappedMessages(stderr: string): TappedMessage[] {
  return stderr
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.startsWith("[stdin] "))
    .map((line) => JSON.parse(line.slice("[stdin] ".length)) as TappedMessage);
}

export interface TappedMessage {
  jsonrpc: "2.0";
  method?: string;
  id?: number;
  params?: { name?: string; requestId?: number; reason?: string; arguments?: unknown; _meta?: Record<string, unknown> };
}

/** Spawn options for the stdio server; `tapStdin` mirrors what it receives to its stderr. */
export function everythingStdio(options: { tapStdin?: boolean; env?: Record<string, string> } = {}): McpStdioServer {
  const preload =
    options.tapStdin === true ? ["--import", `data:text/javascript,${encodeURIComponent(STDIN_TAP)}`] : [];
  return {
    command: process.execPath,
    args: [...preload, EVERYTHING_BIN, "stdio"],
    ...(options.env === undefined ? {} : { env: options.env }),
  };
}

/**
 * Runs the HTTP server on a free loopback port: its `listen(PORT)` is redirected to port 0 on
 * 127.0.0.1 and the port it got is reported on stderr. It stops by itself when this process's
 * end of its stdin closes (this process died) or after `lifetimeMs`, whichever comes first.
 */
function httpLauncher(lifetimeMs: number): string {
  return `
import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once("listening", () => process.stderr.write("SEMA_TEST_PORT=" + this.address().port + "\\n"));
  return listen.call(this, 0, "127.0.0.1", ...args.filter((arg) => typeof arg === "function"));
};
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(0), ${lifetimeMs});
process.argv = [process.execPath, ${JSON.stringify(EVERYTHING_BIN)}, "streamableHttp"];
await import(${JSON.stringify(import.meta.resolve("@modelcontextprotocol/server-everything/dist/index.js"))});
`;
}

export interface EverythingHttp {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Start the streamable HTTP server; resolves once it listens. */
export async function startEverythingHttp(lifetimeMs = 60_000): Promise<EverythingHttp> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", httpLauncher(lifetimeMs)], {
    stdio: ["pipe", "ignore", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${seen}`)), 15_000);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      seen += chunk;
      const match = /SEMA_TEST_PORT=(\d+)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${seen}`));
    });
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    async stop() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
