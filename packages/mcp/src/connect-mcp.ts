/**
 * `connectMcp`: connect to an MCP server (stdio or streamable HTTP), list its tools and hand them
 * back as Sema tools bound to the connection.
 */
import type { Tool } from "@sema-agent/core";
import { SchemaCompiler } from "./json-schema-input.ts";
import { McpSession } from "./mcp-session.ts";
import type { McpConnectOptions, McpServerInfo } from "./options.ts";
import { toSemaTool } from "./to-sema-tool.ts";
import { assignToolNames, fullToolName } from "./tool-names.ts";

/** A tool the server lists that this client cannot run. */
export interface McpSkippedTool {
  name: string;
  reason: string;
}

/**
 * A live connection to one MCP server, from {@link connectMcp}: its tools as Sema tools, what it said
 * about itself, the tools left out, and how to close it.
 */
export interface McpConnection {
  /** The server's tools as Sema tools, in the server's order. */
  tools: Tool[];
  /** Who answered the handshake (its text is the server's: untrusted). */
  serverInfo: McpServerInfo;
  /** Tools left out, with why (those that can only run as MCP tasks). */
  skipped: McpSkippedTool[];
  /** The stdio server's process id; undefined over HTTP. */
  pid: number | undefined;
  /**
   * End the connection: ends the HTTP session, or stops the stdio child (stdin closed, then
   * SIGTERM, then SIGKILL). Idempotent; calls still running fail with `McpToolError` `closed`.
   */
  close(): Promise<void>;
}

/**
 * Connect to an MCP server and map its tools (see the package README for the mapping). Throws
 * `McpToolError` (reason `connect`, `exited`, `disconnected` or `timeout`) when the server cannot
 * be started, reached or listed; nothing is left running then.
 *
 * The tools are a snapshot: a server that changes its list later is not followed.
 */
export async function connectMcp(options: McpConnectOptions): Promise<McpConnection> {
  const session = await McpSession.open(options);
  try {
    const listed = await session.listTools();
    // The tasks API is experimental in the SDK and this client does not advertise it.
    const runnable = listed.filter((tool) => tool.execution?.taskSupport !== "required");
    const skipped = listed
      .filter((tool) => tool.execution?.taskSupport === "required")
      .map((tool) => ({ name: tool.name, reason: "it runs only as an MCP task, which this client does not support" }));
    const names = assignToolNames(runnable.map((tool) => fullToolName(tool.name, options.name)));
    const compiler = new SchemaCompiler();
    const host = options.url === undefined ? undefined : new URL(options.url).hostname;
    const tools = runnable.map((mcp, index) => {
      const name = names[index] ?? mcp.name;
      return toSemaTool(mcp, {
        session,
        compiler,
        name,
        override: options.overrides?.[name] ?? options.overrides?.[mcp.name],
        timeoutMs: options.timeoutMs,
        ...(options.trusted === undefined ? {} : { trusted: options.trusted }),
        ...(host === undefined ? {} : { host }),
      }) as Tool;
    });
    return { tools, serverInfo: session.serverInfo, skipped, pid: session.pid, close: () => session.close() };
  } catch (error) {
    await session.close();
    throw error;
  }
}
