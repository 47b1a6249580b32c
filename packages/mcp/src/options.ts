/** What `connectMcp` accepts. */
import type { Tool } from "@sema-agent/core";

/** Start a local server as a child process and talk to it over its stdin/stdout. */
export interface McpStdioServer {
  command: string;
  args?: string[];
  /**
   * Added to a minimal inherited environment (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`
   * on POSIX): the host's secrets do not leak to a server unless passed here.
   */
  env?: Record<string, string>;
  cwd?: string;
  url?: never;
}

/** Talk to a remote server over the streamable HTTP transport. */
export interface McpHttpServer {
  url: string | URL;
  /** Sent with every request (an `Authorization` header, for one). */
  headers?: Record<string, string>;
  command?: never;
}

/**
 * What a host may change about a tool: MCP annotations are hints from an untrusted server.
 * `egress: false` says a tool does not reach the network with its arguments (every MCP tool is
 * taken to, by default: docs/guide/security.md "Egress").
 */
export type McpToolOverride = Partial<Pick<Tool, "readOnly" | "idempotent" | "timeoutMs" | "egress">>;

/**
 * Options for either transport: a name (prefix and label), call and connect timeouts, per-tool
 * overrides of the server's hints, and a sink for a stdio server's stderr.
 */
export interface McpCommonOptions {
  /**
   * Prefix for the tools' names (`<name>__<tool>`), so two servers' `search` tools can coexist;
   * also the server's label in errors. Default: no prefix, labelled with the server's own name.
   */
  name?: string;
  /**
   * Milliseconds a tool call may take; also each tool's `timeoutMs`, so the harness gives up at
   * the same moment. Default: none of ours, so the harness's tool timeout (or the call's signal)
   * decides.
   */
  timeoutMs?: number;
  /** Milliseconds for the handshake and for each page of the tool list (default 60 s). */
  connectTimeoutMs?: number;
  /**
   * Per-tool corrections, keyed by the Sema tool name or the server's own tool name. An override
   * wins over the server's `readOnlyHint` / `idempotentHint`, which are taken only when `true`.
   */
  overrides?: Record<string, McpToolOverride>;
  /**
   * The server is the host's own and what it returns is trusted text: its tools' output is not
   * fenced, and the provenance policy does not count it as untrusted. Default false: an MCP
   * server's output (errors included) is third-party text. Only the host's configuration says so.
   */
  trusted?: boolean;
  /** The stdio server's stderr, as it arrives (default: kept only as the tail errors cite). */
  onStderr?: (text: string) => void;
}

/** A stdio server or an HTTP server, plus the options common to both. */
export type McpConnectOptions = (McpStdioServer | McpHttpServer) & McpCommonOptions;

/** Who answered the handshake. Server-provided, so untrusted text. */
export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
  /** The server's instructions for using it, when it gave some. */
  instructions?: string;
}
