/**
 * `McpToolError`: every way talking to an MCP server can fail, as one typed Sema error, so a host
 * can tell a dead server (retry after reconnecting) from a tool that reported a failure (do not).
 */
import { SemaError } from "@sema-agent/core";

/**
 * Why an MCP operation failed.
 * - `connect`: the server could not be started or reached, or the handshake failed.
 * - `exited`: the stdio server process exited (or was killed).
 * - `disconnected`: the HTTP server stopped answering or dropped the connection.
 * - `timeout`: no answer within the request timeout.
 * - `cancelled`: the caller's signal aborted the call (interrupt, cancel, the harness's timeout).
 * - `closed`: the host closed the connection.
 * - `tool-error`: the tool ran and reported a failure (`isError: true`).
 * - `failed`: anything else: a JSON-RPC error from the server, a malformed result.
 */
export type McpFailureReason =
  | "connect"
  | "exited"
  | "disconnected"
  | "timeout"
  | "cancelled"
  | "closed"
  | "tool-error"
  | "failed";

/** Connection loss is worth a retry; a refusal or a tool's own failure is not. */
const RETRYABLE: ReadonlySet<McpFailureReason> = new Set(["exited", "disconnected", "timeout"]);

/**
 * The context of an {@link McpToolError}: which server and tool, the cause, whether a retry may help,
 * and extra details.
 */
export interface McpToolErrorOptions {
  /** The server's label: the connection's `name`, else the name the server gave. */
  server: string;
  /** The Sema name of the tool being called, when the failure is a call's. */
  tool?: string;
  cause?: unknown;
  /** Overrides the default for the reason (connection loss and timeouts are retryable). */
  isRetryable?: boolean;
  details?: Record<string, unknown>;
}

/** A failure talking to an MCP server (code `ToolError`). */
export class McpToolError extends SemaError {
  readonly reason: McpFailureReason;
  readonly server: string;
  readonly tool: string | undefined;

  constructor(reason: McpFailureReason, message: string, options: McpToolErrorOptions) {
    const details: Record<string, unknown> = { reason, server: options.server, ...options.details };
    if (options.tool !== undefined) details.tool = options.tool;
    super("ToolError", message, {
      isRetryable: options.isRetryable ?? RETRYABLE.has(reason),
      details,
      cause: options.cause,
    });
    this.name = "McpToolError";
    this.reason = reason;
    this.server = options.server;
    this.tool = options.tool;
  }
}
