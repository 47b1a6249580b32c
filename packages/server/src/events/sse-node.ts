/**
 * An event stream written straight to a Node response, under `@hono/node-server`: the same
 * subscriber as `sseStream`, without a web stream between it and the socket.
 */
import type { SseSource } from "./sse-source.ts";
import { type SseStreamOptions, SseSubscriber } from "./sse-subscriber.ts";

/** Where the body's bytes go: the response, or its socket once the headers are out. */
export interface NodeSink {
  write(chunk: Uint8Array): boolean;
  readonly destroyed: boolean;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** The part of Node's `ServerResponse` the stream writes to. */
export interface NodeResponse extends NodeSink {
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  end(): unknown;
  destroy(): unknown;
  /** The connection (null while an earlier pipelined response still holds it). */
  readonly socket?: NodeSink | null;
  readonly req?: { readonly method?: string | undefined };
  useChunkedEncodingByDefault?: boolean;
  shouldKeepAlive?: boolean;
  /** Set by `writeHead`: whether the body is chunked. */
  readonly chunkedEncoding?: boolean;
}

/**
 * The sink for the body. A response of its own connection is sent without chunked encoding
 * (its body ends when the server closes the connection, which HTTP/1.1 allows and SSE clients
 * expect) and written to the socket itself: `ServerResponse.write` of a chunked body costs a
 * chunk header and trailer, a cork and a `writev` per write, a third of the server's time per
 * delivered event with a thousand subscribers. Otherwise (no socket yet, HEAD, a fake), the
 * response.
 */
function openBody(response: NodeResponse, headers: Record<string, string>): NodeSink {
  const socket = response.socket;
  const direct = socket != null && response.req?.method === "GET" && response.useChunkedEncodingByDefault === true;
  if (direct) {
    response.useChunkedEncodingByDefault = false;
    response.shouldKeepAlive = false;
  }
  response.writeHead(200, headers);
  response.flushHeaders();
  return direct && response.chunkedEncoding === false ? socket : response;
}

/** Streams with something ready, written together once the current turn's work is done. */
let ready: (() => void)[] = [];

function flushReady(): void {
  const now = ready;
  ready = [];
  for (const pump of now) pump();
}

/**
 * Write `pump`'s stream after the current turn (`process.nextTick`: before any I/O or timer),
 * so that every event the turn appended goes out in one write per client, not one each: a
 * burst of events costs a write per client per turn, and a lone event waits for nothing.
 */
function scheduleWrite(pump: () => void): void {
  ready.push(pump);
  if (ready.length === 1) process.nextTick(flushReady);
}

/**
 * The stream written straight to a Node response, under `@hono/node-server`: the same
 * subscriber, without a web stream between it and the socket (about half of the server's CPU per
 * delivered event with a thousand subscribers). The next chunk is taken only once the socket
 * took the last one (`write` true, or `drain`), so the bounds are those of `sseStream`.
 *
 * A live subscriber's frames are written without a promise per event per client (with a
 * thousand subscribers, that round trip was a tenth of the server's time): `onReady` queues the
 * stream, and one tick later every queued stream writes what it has, coalesced. Only a catch-up
 * (a store read) and a full socket wait on a promise.
 */
export function sseToNode(options: SseStreamOptions, response: NodeResponse, headers: Record<string, string>): void {
  sourceToNode(new SseSubscriber(options), response, headers);
}

/** Any event-stream source written to the socket, as {@link sseToNode} writes a task's log. */
export function sourceToNode(subscriber: SseSource, response: NodeResponse, headers: Record<string, string>): void {
  /** Waiting for `onReady` (live, nothing queued, the socket writable). */
  let parked = false;
  /** Where chunks go, once the headers are out. */
  let sink: NodeSink = response;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    parked = false;
    subscriber.onReady = undefined;
    response.off("close", closed);
    subscriber.cancel();
    if (!response.destroyed) response.end();
  };
  const fail = () => {
    // Not expected (the subscriber handles the store's failures); never an unhandled rejection
    // in the server: drop this connection, the client reconnects with Last-Event-ID.
    end();
    response.destroy();
  };
  /** Hand `chunk` to the socket; true when the next one may follow at once. */
  const deliver = (chunk: Uint8Array | null): boolean => {
    if (chunk === null || response.destroyed || sink.destroyed) {
      end();
      return false;
    }
    if (sink.write(chunk)) return true;
    const resume = () => {
      sink.off("drain", resume);
      sink.off("close", resume);
      pump();
    };
    sink.once("drain", resume);
    sink.once("close", resume);
    return false;
  };
  /** Write what is ready, synchronously, until the socket is full or nothing is left. */
  const pump = (): void => {
    if (ended) return;
    for (;;) {
      const chunk = subscriber.poll();
      if (chunk === undefined) {
        if (subscriber.live) {
          parked = true;
          return;
        }
        subscriber.next().then((next) => {
          if (deliver(next)) pump();
        }, fail);
        return;
      }
      if (!deliver(chunk)) return;
    }
  };
  const write = () => {
    try {
      pump();
    } catch {
      fail();
    }
  };
  subscriber.onReady = () => {
    if (!parked) return;
    parked = false;
    scheduleWrite(write);
  };
  const closed = () => end();
  response.once("close", closed);
  subscriber.start();
  sink = openBody(response, headers);
  pump();
}
