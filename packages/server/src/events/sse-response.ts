/**
 * An event stream as the route's response: written straight to the socket under
 * `@hono/node-server` (HTTP/1), or as a web `ReadableStream` body elsewhere (tests, other hosts).
 */
import { type NodeResponse, sourceToNode } from "./sse-node.ts";
import type { SseSource } from "./sse-source.ts";
import { type SseStreamOptions, sourceStream } from "./sse-stream.ts";
import { SseSubscriber } from "./sse-subscriber.ts";

/** `@hono/node-server`'s mark for a response the handler wrote to the socket itself. */
const ALREADY_SENT = "x-hono-already-sent";

const RESPONSE_METHODS = ["writeHead", "flushHeaders", "write", "end", "destroy", "once", "off"] as const;

/**
 * The Node response under `@hono/node-server` (`env.outgoing`), if this is one (HTTP/1). Told by
 * its methods, not by `instanceof ServerResponse`, so this module needs nothing of `node:http`
 * and the app runs on any runtime Hono does. An HTTP/2 response has no `writeHead` of this shape
 * and no `flushHeaders`, so it takes the web stream.
 */
function nodeResponse(env: unknown): NodeResponse | undefined {
  if (typeof env !== "object" || env === null || !("outgoing" in env)) return undefined;
  const { outgoing } = env as { outgoing: unknown };
  if (typeof outgoing !== "object" || outgoing === null) return undefined;
  const candidate = outgoing as Record<string, unknown>;
  if (!RESPONSE_METHODS.every((method) => typeof candidate[method] === "function")) return undefined;
  // An HTTP/2 stream's response (Http2ServerResponse) has these too, but no `useChunkedEncodingByDefault`.
  return typeof candidate.useChunkedEncodingByDefault === "boolean" ? (outgoing as NodeResponse) : undefined;
}

/** The response of a stream over `options`, with `headers` (every header the app's middleware would add). */
export function sseResponse(env: unknown, options: SseStreamOptions, headers: Record<string, string>): Response {
  return sourceResponse(env, new SseSubscriber(options), headers);
}

/** The response of any event-stream source, as {@link sseResponse}. */
export function sourceResponse(env: unknown, source: SseSource, headers: Record<string, string>): Response {
  const outgoing = nodeResponse(env);
  if (outgoing !== undefined) {
    // Written to the socket here; the app's middleware does not see this response.
    sourceToNode(source, outgoing, { ...headers, "x-content-type-options": "nosniff" });
    return new Response(null, { headers: { [ALREADY_SENT]: "true" } });
  }
  return new Response(sourceStream(source), { headers });
}
