/**
 * The trace context of one MCP tool call: `params._meta.traceparent` (and `tracestate`), the
 * convention MCP clients use, else the HTTP request's own headers. A session outlives its
 * requests, so the caller it was opened with carries none; each call brings its own.
 */
import { parseTraceContext } from "@sema-agent/core";
import type { Caller } from "../ingress/caller.ts";

/** What the SDK hands a tool handler of the request: its `_meta` and, over HTTP, its headers. */
export interface CallExtra {
  _meta?: { [key: string]: unknown } | undefined;
  requestInfo?: { headers: { [key: string]: string | string[] | undefined } } | undefined;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** `caller` with the call's trace context; a malformed or absent one: none. */
export function withCallTrace(caller: Caller, extra: CallExtra): Caller {
  const { traceContext: _session, ...base } = caller;
  const meta = extra._meta;
  const headers = extra.requestInfo?.headers;
  const traceContext =
    text(meta?.traceparent) !== undefined
      ? parseTraceContext({ traceparent: text(meta?.traceparent), tracestate: text(meta?.tracestate) })
      : parseTraceContext({ traceparent: text(headers?.traceparent), tracestate: text(headers?.tracestate) });
  return traceContext === undefined ? base : { ...base, traceContext };
}
