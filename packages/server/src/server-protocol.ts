/**
 * A protocol served beside `/v1` — A2A, MCP, AG-UI, the AI SDK's UI message stream, the web
 * console — is an opt-in part the host hands to `createApp` (or `serve`). Each lives on its own
 * subpath of the package (`@sema-agent/server/a2a` …), so an app that mounts none of them loads
 * none of their SDKs, and a deployment exposes only the surfaces it chose.
 *
 * Every protocol is written against the same contract: the task actions of `tasks/` (create,
 * read, send an input, decide an approval, cancel), the `/v1` ingress and rate limit, and the
 * app's limits and clock. Nothing a protocol does is out of reach of `/v1`'s isolation rules.
 */
import type { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "./app-env.ts";
import type { Ingress } from "./ingress/caller.ts";
import type { AnyRouteSpec } from "./route.ts";
import type { RouteDeps } from "./routes/deps.ts";

/** What a protocol receives from the app it is mounted on. */
export interface ProtocolContext {
  /** The task actions' dependencies and the app's settings: store, agents, limits, clock, streams. */
  readonly deps: RouteDeps;
  /** Authenticates a request exactly as `/v1` does. */
  readonly ingress: Ingress;
  /** The `/v1` rate limiter: one bucket per principal, shared by every surface of the app. */
  readonly rateLimiter: {
    /** Take one request from `principal`'s bucket, or throw a 429 `HttpError` saying when to retry. */
    take(principal: string): void;
  };
  /** The HTTP API's version (`API_VERSION`). */
  readonly version: string;
}

/**
 * An opt-in protocol for `createApp({ protocols })`: made by `a2a()`, `mcp()`, `agUi()`,
 * `uiStream()` or `webConsole()` from their subpaths. One of each name per app.
 */
export interface ServerProtocol {
  /** Short and stable: `a2a`, `mcp`, `ag-ui`, `ui-stream`, `console`. */
  readonly name: string;
  /**
   * Routes under `/v1`: validated by their schemas, behind the `/v1` ingress and rate limit, and
   * listed in the OpenAPI document.
   */
  routes?(deps: RouteDeps): AnyRouteSpec[];
  /** Anything else the protocol serves, registered on the app after the `/v1` routes. */
  mount?(app: Hono<AppEnv>, context: ProtocolContext): void;
  /** Called by `serve` once the port is bound (A2A sends the push notifications it owes). */
  start?(): Promise<void>;
  /** Called by `serve` as it closes, after the workers stopped. */
  close?(): Promise<void>;
}

/** The protocols' names, for a start-up line: `a2a, mcp` or `none`. */
export function protocolNames(protocols: readonly ServerProtocol[]): string {
  return protocols.length === 0 ? "none" : protocols.map((protocol) => protocol.name).join(", ");
}

const OPTIONAL_METHODS = ["routes", "mount", "start", "close"] as const;

/** A `ServerProtocol` as options check it: a name, and each hook a function where present. */
export const protocolSchema = z.custom<ServerProtocol>(
  (value) => {
    if (typeof value !== "object" || value === null) return false;
    const record = value as Record<string, unknown>;
    if (typeof record.name !== "string" || record.name === "") return false;
    return OPTIONAL_METHODS.every((key) => record[key] === undefined || typeof record[key] === "function");
  },
  { error: "must be a protocol, e.g. a2a() of @sema-agent/server/a2a or mcp() of @sema-agent/server/mcp" },
);
