/** Serving a Hono app on a real socket with Node's http server (the `./node` subpath). */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";

/** Where {@link listen} binds: host (default loopback) and port (default 7777). */
export interface ListenOptions {
  /** Default `127.0.0.1`: loopback unless told otherwise. */
  host?: string;
  /** Default 7777; 0 picks a free port. */
  port?: number;
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

/**
 * Serve `app` with Node's http server on `options.host` and `options.port`; resolves once bound
 * (rejects if the port cannot be bound).
 */
export async function listen(app: Hono<AppEnv>, options: ListenOptions = {}): Promise<Listening> {
  const host = options.host ?? "127.0.0.1";
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Event streams never end by themselves: close them so `close` completes.
        server.closeAllConnections();
      }),
  };
}
