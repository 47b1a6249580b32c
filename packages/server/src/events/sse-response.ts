/**
 * An event stream as the route's response: written straight to the socket under
 * `@hono/node-server` (HTTP/1), or as a web `ReadableStream` body elsewhere (tests, other hosts).
 */
import { ServerResponse } from "node:http";
import { type NodeResponse, sseToNode } from "./sse-node.ts";
import { type SseStreamOptions, sseStream } from "./sse-stream.ts";

/** `@hono/node-server`'s mark for a response the handler wrote to the socket itself. */
const ALREADY_SENT = "x-hono-already-sent";

/** The Node response under `@hono/node-server` (`env.outgoing`), if this is one (HTTP/1). */
function nodeResponse(env: unknown): NodeResponse | undefined {
  if (typeof env !== "object" || env === null || !("outgoing" in env)) return undefined;
  const { outgoing } = env;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}

/** The response of a stream over `options`, with `headers` (every header the app's middleware would add). */
export function sseResponse(env: unknown, options: SseStreamOptions, headers: Record<string, string>): Response {
  const outgoing = nodeResponse(env);
  if (outgoing !== undefined) {
    // Written to the socket here; the app's middleware does not see this response.
    sseToNode(options, outgoing, { ...headers, "x-content-type-options": "nosniff" });
    return new Response(null, { headers: { [ALREADY_SENT]: "true" } });
  }
  return new Response(sseStream(options), { headers });
}
