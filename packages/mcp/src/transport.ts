/**
 * The MCP SDK transport for a server spec: a stdio child process (its stderr captured, so a
 * server's logging neither floods the host's terminal nor blocks on a full pipe) or streamable HTTP.
 * The HTTP transport (and the SSE parser it pulls in) loads only when a URL is given.
 */
import { basename } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpConnectOptions } from "./options.ts";

/** How much of a server's stderr errors keep, in characters. */
const STDERR_TAIL_CHARS = 4096;

export interface OpenedTransport {
  kind: "stdio" | "http";
  transport: Transport;
  /** The server's label until its handshake names it. */
  label: string;
  /** The last few KiB the stdio server wrote to stderr. */
  stderrTail(): string;
  /** The stdio child's process id, once started. */
  pid(): number | undefined;
}

export async function openTransport(options: McpConnectOptions): Promise<OpenedTransport> {
  if (options.command !== undefined) {
    const transport = new StdioClientTransport({
      command: options.command,
      ...(options.args === undefined ? {} : { args: options.args }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stderr: "pipe",
    });
    let tail = "";
    // With "pipe" the SDK hands out this stream before the child starts, so nothing is lost.
    // A decoder, so a character split across two chunks is not mangled.
    const decoder = new StringDecoder("utf8");
    transport.stderr?.on("data", (chunk: Buffer | string) => {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      if (text === "") return;
      tail = (tail + text).slice(-STDERR_TAIL_CHARS);
      options.onStderr?.(text);
    });
    return {
      kind: "stdio",
      transport,
      label: options.name ?? basename(options.command),
      stderrTail: () => tail,
      pid: () => transport.pid ?? undefined,
    };
  }
  const url = new URL(options.url);
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const transport = new StreamableHTTPClientTransport(url, {
    ...(options.headers === undefined ? {} : { requestInit: { headers: options.headers } }),
  });
  return { kind: "http", transport, label: options.name ?? url.host, stderrTail: () => "", pid: () => undefined };
}
