/**
 * A loopback HTTP server that replays recorded vendor responses and records the requests a real
 * AI SDK provider sent it. Test support only: excluded from the build.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

/** One scripted response. */
export interface Reply {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** A whole body, written at once (error responses). */
  body?: string;
  /** Server-sent events, each written as its own chunk (a streamed response). */
  events?: readonly string[];
  /** Write this many events, then destroy the socket: the connection drops mid-stream. */
  dropAfter?: number;
  /** Write this many events, then stall until the client goes away. */
  hangAfter?: number;
  /** Write this many events, then end the response cleanly: the stream is cut short. */
  endAfter?: number;
}

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, as UTF-8 text. */
  body: string;
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` plus the prefix the provider expects (e.g. `/v1`). */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Queue replies, served in order, one per request. */
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
}

/**
 * Start a replay server on an ephemeral loopback port, or on `port` (a test that closed a server
 * to have its port refuse connections opens it again there).
 */
export async function startReplayServer(prefix = "/v1", port = 0): Promise<ReplayServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const reply = queue.shift();
      if (reply === undefined) {
        res.writeHead(418, { "content-type": "text/plain" }).end("replay server: no reply queued");
        return;
      }
      void serve(reply, res);
    });
  });

  async function serve(reply: Reply, res: import("node:http").ServerResponse): Promise<void> {
    const events = reply.events;
    if (events === undefined) {
      res
        .writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
        .end(reply.body ?? "");
      return;
    }
    res.writeHead(reply.status ?? 200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...reply.headers,
    });
    const stopAt = reply.dropAfter ?? reply.hangAfter ?? reply.endAfter ?? events.length;
    for (const event of events.slice(0, stopAt)) {
      if (res.destroyed) return;
      res.write(event);
      // Yield to the event loop so each event leaves as its own chunk, as a live stream would.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (reply.dropAfter !== undefined) res.socket?.destroy();
    else if (reply.hangAfter === undefined) res.end();
    // hangAfter: leave the response open; close() or the client's abort ends it.
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${address.port}${prefix}`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text of a fixture file under `packages/ai-sdk/fixtures/`. */
export function fixture(path: string): string {
  return readFileSync(fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url)), "utf8");
}

/** A recorded SSE stream split into its events (each still ending in its blank line). */
export function sseEvents(path: string): string[] {
  return fixture(path)
    .split(/\n\n/)
    .filter((event) => event.trim() !== "")
    .map((event) => `${event}\n\n`);
}
