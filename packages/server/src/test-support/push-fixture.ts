/**
 * For the push-notification tests: `serve` on a SQLite file with a push policy the test chooses
 * (the A2A fixture always allows private networks), and a webhook receiver on 127.0.0.1 that
 * records every request it gets.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Agent } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import type { PushUrlPolicy } from "../a2a/push-url.ts";
import { SqlitePushConfigStore } from "../a2a/sqlite-push-config-store.ts";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { serve } from "../serve.ts";
import type { A2AServer } from "./a2a-server.ts";

/** An A2A server whose push configs the test can read. */
export interface PushServer extends A2AServer {
  configs: SqlitePushConfigStore;
}

/** `serve` over a SQLite file in `dir` with the push policy `urls`. */
export async function startPushServer(
  dir: string,
  agents: Record<string, Agent>,
  urls: PushUrlPolicy,
): Promise<PushServer> {
  const path = join(dir, "sema.db");
  const store = new SqliteStore({ path });
  const tokens = new SqliteTokenStore({ path });
  const configs = new SqlitePushConfigStore({ path });
  const serving = await serve({
    store,
    tokens,
    agents: createAgentRegistry(agents, "default"),
    port: 0,
    host: "127.0.0.1",
    workers: { pollMs: 20 },
    a2aPush: { configs, urls, retry: { baseMs: 20, maxMs: 200 } },
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

/** One request a receiver got. */
export interface ReceivedPush {
  /** The request's path. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook on 127.0.0.1 answering 200 to everything, keeping what it got. */
export interface Receiver {
  port: number;
  received: ReceivedPush[];
  close(): Promise<void>;
}

/** Start a {@link Receiver}. */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedPush[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
