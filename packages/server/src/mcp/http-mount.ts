/**
 * Streamable HTTP at `/mcp`, on the API's app with the API's bearer tokens. Every request is
 * authenticated and rate limited like a `/v1` request. A session belongs to the token that opened
 * it: the same session id with another token (or a revoked one) is refused, and an unknown session
 * is a 404 (a client then initializes again, as MCP asks). Bodies are read under the API's limits
 * (size, nesting depth) before the SDK's transport sees them, so malformed JSON is the API's typed
 * 400, never a 5xx. Sessions idle for half an hour are closed when new ones open.
 */
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { HttpError } from "../http-error.ts";
import type { Caller, Ingress } from "../ingress/caller.ts";
import type { RateLimiter } from "../ingress/rate-limit.ts";
import { SPEAKER_HEADER } from "../ingress/speaker.ts";
import { readJsonBody } from "../request-body.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";
import { createMcpServer } from "./mcp-server.ts";

/** The path the MCP endpoint is served at. */
export const MCP_PATH = "/mcp";

const SESSION_HEADER = "mcp-session-id";
const IDLE_MS = 30 * 60_000;
/** Open sessions of one token, at most; then the least recently used is closed for a new one. */
const MAX_SESSIONS_PER_TOKEN = 32;
const MAX_SESSIONS = 10_000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  tokenId: string;
  lastUsed: number;
}

export interface McpMountOptions {
  deps: TaskDeps;
  ingress: Ingress;
  rateLimiter: Pick<RateLimiter, "take">;
  /** Milliseconds since the epoch (idle sessions). */
  now: () => number;
}

/** Mount the MCP endpoint on `app`. */
export function mountMcp(app: Hono<AppEnv>, options: McpMountOptions): void {
  const sessions = new Map<string, Session>();
  const { limits } = options.deps;

  const close = (id: string) => {
    const session = sessions.get(id);
    sessions.delete(id);
    void session?.transport.close().catch(() => undefined);
  };

  /** Room for a new session of `tokenId`: idle sessions go, then this token's least recently used. */
  const makeRoom = (tokenId: string) => {
    const now = options.now();
    for (const [id, session] of sessions) if (now - session.lastUsed > IDLE_MS) close(id);
    const own = [...sessions].filter(([, session]) => session.tokenId === tokenId);
    own.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    while (own.length >= MAX_SESSIONS_PER_TOKEN) {
      const oldest = own.shift();
      if (oldest !== undefined) close(oldest[0]);
    }
    if (sessions.size >= MAX_SESSIONS)
      throw new HttpError(503, "Unavailable", "too many MCP sessions are open; try again later", {
        headers: { "Retry-After": "60" },
      });
  };

  /** A fresh session's transport and server, speaking as `caller`; kept once the client initializes. */
  const open = async (caller: Caller) => {
    makeRoom(caller.tokenId);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, tokenId: caller.tokenId, lastUsed: options.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
      maxRequestBodySize: limits.maxBodyBytes,
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createMcpServer(options.deps, caller).connect(transport);
    return transport;
  };

  const handle = async (context: Context<AppEnv>) => {
    const request = context.req.raw;
    const caller = await options.ingress.authenticate({
      authorization: context.req.header("authorization"),
      speaker: context.req.header(SPEAKER_HEADER),
    });
    options.rateLimiter.take(caller.principal);
    const parsedBody = request.method === "POST" ? await readJsonBody(request, limits, false) : undefined;
    const id = context.req.header(SESSION_HEADER);
    if (id !== undefined) {
      const session = sessions.get(id);
      // Another token's session reads exactly like one that does not exist.
      if (session === undefined || session.tokenId !== caller.tokenId)
        throw new HttpError(404, "NotFound", "no such MCP session: initialize a new one");
      session.lastUsed = options.now();
      return session.transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
    }
    const transport = await open(caller);
    const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
    // Anything but an initialize opened no session: nothing is kept.
    if (transport.sessionId === undefined) await transport.close();
    return response;
  };

  app.on(["GET", "POST", "DELETE"], MCP_PATH, handle);
}
