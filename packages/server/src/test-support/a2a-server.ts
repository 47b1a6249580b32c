/**
 * `sema serve` for the A2A tests: a SQLite file store, its token store and push-config table,
 * the scripted agent, a real socket; and official `@a2a-js/sdk` clients for a token over either
 * transport.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import type { Agent } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import type { PushUrlPolicy } from "../a2a/push-url.ts";
import { SqlitePushConfigStore } from "../a2a/sqlite-push-config-store.ts";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "./all-protocols.ts";

export type Transport = "JSONRPC" | "HTTP+JSON";

export interface A2AServer {
  serving: Serving;
  store: SqliteStore;
  tokens: SqliteTokenStore;
  path: string;
  /** Its push configs and their delivery cursors. */
  configs: SqlitePushConfigStore;
  /** Stop the server and close its stores (the file stays). */
  stop(): Promise<void>;
}

/** A fresh directory for one test's database file. */
export function freshDir(): string {
  return mkdtempSync(join(tmpdir(), "sema-a2a-"));
}

/** How {@link startA2AServer} serves: its port, push retry base, and push URL policy. */
export interface A2AServerOptions {
  port?: number;
  retryMs?: number;
  /** Where webhooks may go. Default: private networks allowed (the tests' receivers are on 127.0.0.1). */
  urls?: PushUrlPolicy;
}

/** Serve `agents` over the SQLite file at `path` (created if missing), on 127.0.0.1. */
export async function startA2AServer(
  path: string,
  agents: Record<string, Agent>,
  options: A2AServerOptions = {},
): Promise<A2AServer> {
  const store = new SqliteStore({ path });
  const tokens = new SqliteTokenStore({ path });
  const configs = new SqlitePushConfigStore({ path });
  const serving = await serve({
    store,
    tokens,
    agents: createAgentRegistry(agents, "default"),
    port: options.port ?? 0,
    host: "127.0.0.1",
    workers: { pollMs: 20 },
    protocols: allProtocols({
      a2a: {
        push: {
          configs,
          urls: options.urls ?? { allowPrivateNetworks: true },
          retry: { baseMs: options.retryMs ?? 20, maxMs: 200 },
          tokens,
        },
      },
    }),
  });
  return {
    serving,
    store,
    tokens,
    configs,
    path,
    async stop() {
      await serving.close({ deadlineMs: 2000 });
      await configs.close();
      await store.close();
      await tokens.close();
    },
  };
}

/** One A2A server per test over a fresh SQLite file, stopped (and its folder removed) by `stop`. */
export interface A2AWorld {
  /** Serve `agents` (see {@link startA2AServer}) over a new file in a new folder. */
  start(agents: Record<string, Agent>, options?: A2AServerOptions): Promise<A2AServer>;
  /** Stop what `start` started (for `afterEach`). */
  stop(): Promise<void>;
}

/** An {@link A2AWorld}: call `stop` in `afterEach`. */
export function a2aWorld(): A2AWorld {
  let server: A2AServer | undefined;
  let dir: string | undefined;
  return {
    async start(agents, options = {}) {
      dir = freshDir();
      server = await startA2AServer(join(dir, "sema.db"), agents, options);
      return server;
    },
    async stop() {
      await server?.stop();
      server = undefined;
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

/** An official A2A client of the agent whose card is at `baseUrl`, authenticating with `token`. */
export async function a2aClient(baseUrl: string, token: string, transport: Transport): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [transport],
  });
  return factory.createFromUrl(baseUrl);
}
