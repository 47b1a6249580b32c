/** Serving a Hono app on a real socket with Node's http server (the `./node` subpath). */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createAdaptorServer } from "@hono/node-server";
import type { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * One request, for an access log: its method, its path without the query string (a query can
 * carry a secret; no header is ever in it), the status answered and how long it took.
 */
export interface AccessLogEntry {
  method: string;
  /** The request's path, without its query string or fragment. */
  path: string;
  status: number;
  /** Milliseconds from the request's arrival until its response ended (an event stream: until it closed). */
  durationMs: number;
}

/** Where {@link listen} binds: host (default loopback) and port (default 7777). */
export interface ListenOptions {
  /** Default `127.0.0.1`: loopback unless told otherwise. */
  host?: string;
  /** Default 7777; 0 picks a free port. */
  port?: number;
  /** Called once per request when its response has ended or its connection closed. Default: none. */
  accessLog?: (entry: AccessLogEntry) => void;
}

/** A bound server: its URL, host and port, the Node server, and how to close it. */
export interface Listening {
  /** `http://host:port` as bound. */
  url: string;
  host: string;
  port: number;
  /** The Node http server, for hosts that need it (timeouts, upgrade handlers). */
  server: Server;
  /** Stop accepting, end open connections (SSE streams included), and resolve once closed. */
  close(): Promise<void>;
}

type Fetch = Hono<AppEnv>["fetch"];

/**
 * Serve `app` with Node's http server on `options.host` and `options.port`; resolves once bound
 * (rejects if the port cannot be bound).
 */
export async function listen(app: Hono<AppEnv>, options: ListenOptions = {}): Promise<Listening> {
  const bound = await bindPort(options);
  bound.serve(app);
  return bound;
}

/**
 * A port bound before its app exists (what `serve` does: a port in use is refused before a token
 * is minted or a worker started). Until `serve(app)`, every request is answered 503.
 */
export async function bindPort(options: ListenOptions): Promise<Listening & { serve(app: Hono<AppEnv>): void }> {
  const host = options.host ?? "127.0.0.1";
  let fetch: Fetch = () => new Response("starting", { status: 503, headers: { "retry-after": "1" } });
  const forward: Fetch = (request, env, context) => fetch(request, env, context);
  const server = createAdaptorServer({ fetch: forward }) as Server;
  const log = options.accessLog;
  if (log !== undefined) server.on("request", (request, response) => logRequest(request, response, log));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 7777, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    host,
    port,
    server,
    serve: (app) => {
      fetch = app.fetch;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Event streams never end by themselves: close them so `close` completes.
        server.closeAllConnections();
      }),
  };
}

/** The path of a request target without its query string or fragment. */
export function pathOf(target: string | undefined): string {
  const path = (target ?? "/").split(/[?#]/, 1)[0] ?? "/";
  return path === "" ? "/" : path;
}

function logRequest(request: IncomingMessage, response: ServerResponse, log: (entry: AccessLogEntry) => void): void {
  const started = performance.now();
  response.once("close", () => {
    try {
      log({
        method: request.method ?? "?",
        path: pathOf(request.url),
        status: response.statusCode,
        durationMs: Math.round(performance.now() - started),
      });
    } catch {
      // A log that throws loses its line, never the request.
    }
  });
}
