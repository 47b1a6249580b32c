/**
 * One live connection to an MCP server: the handshake, paginated tool listing, and calls whose
 * every failure (a dead child, a dropped HTTP connection, a timeout, a cancel) comes back as an
 * `McpToolError` rather than a hang, a crash or an unhandled rejection.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, ErrorCode, McpError, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { inlineUntrusted } from "@sema-agent/core/trust";
import { McpToolError } from "./mcp-tool-error.ts";
import type { McpConnectOptions, McpServerInfo } from "./options.ts";
import { type OpenedTransport, openTransport } from "./transport.ts";

const CLIENT_INFO = { name: "sema-agent", version: "0.1.0" };
/** The MCP SDK's own default, made explicit. */
const CONNECT_TIMEOUT_MS = 60_000;
/** The longest timer Node accepts; "no timeout of ours" for the SDK, which always sets one. */
const NO_TIMEOUT_MS = 2_147_483_647;
const MAX_PAGES = 1000;
/** How long a liveness ping may take before an HTTP server counts as gone. */
const PROBE_TIMEOUT_MS = 5000;
/** How long `close()` waits for the HTTP server to end the session before dropping it. */
const TERMINATE_WAIT_MS = 2000;
/** Server text quoted in our own messages: one line, this long at most. */
const QUOTE_CHARS = 500;

/** An abort reason marking a call failed by the connection, not by its caller. */
const CONNECTION_LOST = Symbol("connection lost");

export interface CallRequest {
  mcpName: string;
  toolName: string;
  args: { [key: string]: unknown };
  signal: AbortSignal;
  timeoutMs: number | undefined;
  /** The W3C `traceparent` of the calling span, sent as `_meta.traceparent` (MCP's convention); absent: none. */
  traceparent?: string | undefined;
}

function quote(error: unknown): string {
  return inlineUntrusted(error instanceof Error ? error.message : String(error), QUOTE_CHARS);
}

function lastLine(text: string): string {
  return inlineUntrusted(text.trimEnd().split("\n").at(-1) ?? "", QUOTE_CHARS);
}

export class McpSession {
  readonly #client = new Client(CLIENT_INFO, { capabilities: {} });
  readonly #opened: OpenedTransport;
  readonly #callTimeoutMs: number | undefined;
  readonly #connectTimeoutMs: number;
  #label: string;
  /** Set when the connection died under us: every later call fails fast with it. */
  #lost: "exited" | "disconnected" | undefined;
  #closedByHost = false;
  #closing: Promise<void> | undefined;
  readonly #inflight = new Set<AbortController>();
  #probing = false;

  private constructor(options: McpConnectOptions, opened: OpenedTransport) {
    this.#opened = opened;
    this.#label = this.#opened.label;
    this.#callTimeoutMs = options.timeoutMs;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    this.#client.onclose = () => {
      // Over stdio, the transport closes only when the child's pipes close: the process is gone.
      if (!this.#closedByHost) this.#lost = this.#opened.kind === "stdio" ? "exited" : "disconnected";
    };
    // Transport errors are reported here, not thrown; over HTTP they may mean the server is gone
    // while a call waits for an answer that will never come.
    this.#client.onerror = () => this.#probeIfWaiting();
  }

  /** Start or reach the server and complete the handshake; on failure nothing is left running. */
  static async open(options: McpConnectOptions): Promise<McpSession> {
    let opened: OpenedTransport;
    try {
      opened = await openTransport(options);
    } catch (error) {
      // A malformed URL, for one: nothing was started yet.
      const server = options.name ?? ("url" in options ? String(options.url) : options.command);
      throw new McpToolError("connect", `Could not connect to MCP server ${server}: ${quote(error)}`, {
        server,
        cause: error,
      });
    }
    const session = new McpSession(options, opened);
    try {
      await session.#client.connect(session.#opened.transport, { timeout: session.#connectTimeoutMs });
    } catch (error) {
      const failure = session.#connectError(error);
      await session.close();
      throw failure;
    }
    const info = session.#client.getServerVersion();
    if (options.name === undefined && info !== undefined) session.#label = info.name;
    return session;
  }

  /** The server's label in messages: the connection's name, else the server's. */
  get label(): string {
    return this.#label;
  }

  get pid(): number | undefined {
    return this.#opened.pid();
  }

  get serverInfo(): McpServerInfo {
    const info = this.#client.getServerVersion();
    const result: McpServerInfo = { name: info?.name ?? this.#label, version: info?.version ?? "" };
    if (info?.title !== undefined) result.title = info.title;
    const instructions = this.#client.getInstructions();
    if (instructions !== undefined) result.instructions = instructions;
    return result;
  }

  /** Every tool the server lists, following `nextCursor` to the end. */
  async listTools(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let result: Awaited<ReturnType<Client["listTools"]>>;
      try {
        result = await this.#client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.#connectTimeoutMs,
        });
      } catch (error) {
        throw this.#connectError(error, "listing its tools");
      }
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      // A server repeating a cursor would page forever.
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
    throw new McpToolError("failed", `MCP server ${this.#label} kept paginating its tool list`, {
      server: this.#label,
    });
  }

  /** Call a tool. Resolves with the raw result (even `isError`); every failure is an McpToolError. */
  async call(request: CallRequest): Promise<CallToolResult> {
    const { toolName, signal } = request;
    if (this.#lost !== undefined || this.#closedByHost) throw this.#deadError(toolName, "before");
    // Our own controller, so the connection can fail a call too, and a caller's signal that
    // aborts after the call settled sends no stray `notifications/cancelled`.
    const controller = new AbortController();
    const forward = () => controller.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
    this.#inflight.add(controller);
    const timeout = request.timeoutMs ?? this.#callTimeoutMs ?? NO_TIMEOUT_MS;
    try {
      const params = {
        name: request.mcpName,
        arguments: request.args,
        // The calling span, so a server that traces puts its work in the caller's trace.
        ...(request.traceparent === undefined ? {} : { _meta: { traceparent: request.traceparent } }),
      };
      const result = await this.#client.callTool(params, undefined, {
        signal: controller.signal,
        timeout,
      });
      return result as CallToolResult;
    } catch (error) {
      throw this.#callError(error, toolName, controller.signal, signal, timeout);
    } finally {
      signal.removeEventListener("abort", forward);
      this.#inflight.delete(controller);
    }
  }

  /** Idempotent: ends the HTTP session or stops the stdio child (SIGTERM, then SIGKILL). */
  close(): Promise<void> {
    this.#closedByHost = true;
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const { transport } = this.#opened;
    if (this.#opened.kind === "http" && this.#lost === undefined && "terminateSession" in transport) {
      const terminate = (transport as { terminateSession(): Promise<void> }).terminateSession().catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const wait = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TERMINATE_WAIT_MS);
      });
      await Promise.race([terminate, wait]);
      clearTimeout(timer);
    }
    // The SDK's stdio close ends stdin, then escalates to SIGTERM and SIGKILL, 2 s apart.
    await this.#client.close().catch(() => {});
  }

  /**
   * Over HTTP, a transport error while calls wait may be the server dying mid-answer; the SDK
   * would keep those calls waiting for their timeout. A ping tells: if it cannot reach the
   * server, the waiting calls fail now as disconnected.
   */
  #probeIfWaiting(): void {
    if (this.#opened.kind !== "http" || this.#probing || this.#inflight.size === 0 || this.#closedByHost) return;
    this.#probing = true;
    this.#client
      .ping({ timeout: PROBE_TIMEOUT_MS })
      .then(
        () => {},
        (error: unknown) => {
          // A slow answer is not a dead server; the calls' own timeouts handle that.
          if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return;
          const waiting = [...this.#inflight];
          this.#inflight.clear();
          for (const controller of waiting) controller.abort(CONNECTION_LOST);
        },
      )
      .finally(() => {
        this.#probing = false;
      });
  }

  #deadError(tool: string, when: "before" | "during", cause?: unknown): McpToolError {
    const options = { server: this.#label, tool, cause, details: { stderr: this.#opened.stderrTail() } };
    if (this.#closedByHost) {
      const outcome = when === "during" ? "did not finish" : "was not sent";
      return new McpToolError("closed", `MCP server ${this.#label} was closed; the call to ${tool} ${outcome}`, {
        ...options,
        isRetryable: false,
      });
    }
    const reason = this.#lost ?? (this.#opened.kind === "stdio" ? "exited" : "disconnected");
    const what = reason === "exited" ? "exited" : "disconnected";
    const message =
      when === "during"
        ? `MCP server ${this.#label} ${what} during the call to ${tool}`
        : `MCP server ${this.#label} has ${what}; the call to ${tool} was not sent`;
    return new McpToolError(reason, message, options);
  }

  #callError(error: unknown, tool: string, ours: AbortSignal, callers: AbortSignal, timeoutMs: number): McpToolError {
    if (error instanceof McpToolError) return error;
    if (ours.aborted && ours.reason === CONNECTION_LOST) return this.#deadError(tool, "during", error);
    if (callers.aborted) {
      return new McpToolError("cancelled", `The call to ${tool} on MCP server ${this.#label} was cancelled`, {
        server: this.#label,
        tool,
        cause: callers.reason,
      });
    }
    if (this.#lost !== undefined || this.#closedByHost) return this.#deadError(tool, "during", error);
    if (error instanceof McpError) {
      if (error.code === ErrorCode.ConnectionClosed) return this.#deadError(tool, "during", error);
      if (error.code === ErrorCode.RequestTimeout) {
        return new McpToolError(
          "timeout",
          `MCP server ${this.#label} did not answer the call to ${tool} within ${timeoutMs} ms`,
          { server: this.#label, tool, cause: error },
        );
      }
      return new McpToolError("failed", `MCP server ${this.#label} refused the call to ${tool}: ${quote(error)}`, {
        server: this.#label,
        tool,
        cause: error,
        details: { rpcCode: error.code },
      });
    }
    // Over HTTP, anything but a JSON-RPC answer (fetch failed, connection reset, a 404 for a
    // session the server forgot) means the server could not be reached.
    if (this.#opened.kind === "http") return this.#deadError(tool, "during", error);
    return new McpToolError("failed", `The call to ${tool} on MCP server ${this.#label} failed: ${quote(error)}`, {
      server: this.#label,
      tool,
      cause: error,
    });
  }

  #connectError(error: unknown, doing = "connecting"): McpToolError {
    const stderr = this.#opened.stderrTail();
    const options = { server: this.#label, cause: error, details: { stderr } };
    const said = stderr.trim() === "" ? "" : ` (its last stderr line: ${lastLine(stderr)})`;
    if (this.#lost === "exited" || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
      const what = this.#opened.kind === "stdio" ? "exited" : "disconnected";
      return new McpToolError(what, `MCP server ${this.#label} ${what} while ${doing}${said}`, options);
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new McpToolError(
        "timeout",
        `MCP server ${this.#label} did not answer within ${this.#connectTimeoutMs} ms while ${doing}`,
        options,
      );
    }
    // An HTTP server that cannot be reached now may be reachable later; a command that cannot
    // be started, or a server that refuses the handshake, will not be.
    const network = this.#opened.kind === "http" && !(error instanceof McpError);
    return new McpToolError("connect", `Could not connect to MCP server ${this.#label}: ${quote(error)}${said}`, {
      ...options,
      isRetryable: network,
    });
  }
}
