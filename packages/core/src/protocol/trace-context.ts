/**
 * A caller's W3C trace context (https://www.w3.org/TR/trace-context/), recorded on the event a
 * request causes (`task_created`, `human_input`, `approval_decided`) so that a trace exporter can
 * link the task's trace to the caller's from the log alone: after a restart, on any worker, long
 * after. Plain strings: core knows nothing of OpenTelemetry.
 */
import { z } from "zod";

// version 00: 2 hex version, 32 hex trace id, 16 hex parent id, 2 hex flags, lowercase only.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// A later version: the same four fields first, then nothing or `-` and more (the spec's forward rule).
const FUTURE_TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/s;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
// A list member's key (simple or tenant@system) and its value (printable ASCII but `,` and `=`,
// not ending in a space).
const TRACESTATE_MEMBER =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const TRACESTATE_MAX_CHARS = 512;
const TRACESTATE_MAX_MEMBERS = 32;

function validTraceparent(value: string): boolean {
  const match = TRACEPARENT.exec(value);
  return match !== null && match[1] !== ZERO_TRACE && match[2] !== ZERO_SPAN;
}

function validTracestate(value: string): boolean {
  if (value.length > TRACESTATE_MAX_CHARS) return false;
  const members = value
    .split(",")
    .map((member) => member.trim())
    .filter((member) => member !== "");
  if (members.length === 0 || members.length > TRACESTATE_MAX_MEMBERS) return false;
  const keys = new Set<string>();
  for (const member of members) {
    if (!TRACESTATE_MEMBER.test(member)) return false;
    const key = member.slice(0, member.indexOf("="));
    if (keys.has(key)) return false;
    keys.add(key);
  }
  return true;
}

/**
 * The caller's trace context as recorded: `traceparent` in its version-00 form (a later version's
 * first four fields, re-written as 00), and `tracestate` only when it was well-formed.
 */
export const traceContextSchema = z.strictObject({
  traceparent: z.string().refine(validTraceparent, { message: "not a W3C traceparent (version 00)" }),
  tracestate: z.string().refine(validTracestate, { message: "not a W3C tracestate" }).exactOptional(),
});
/** A caller's W3C trace context, as recorded in the log (see {@link traceContextSchema}). */
export type TraceContext = z.infer<typeof traceContextSchema>;

/**
 * The trace context of a request's `traceparent` and `tracestate` headers, validated strictly;
 * undefined when `traceparent` is absent or malformed (an invalid trace id or span id, upper-case
 * hex, version `ff`, two headers joined by a comma, …). A malformed `tracestate` is dropped and
 * the `traceparent` kept, as the W3C recommendation says. Never throws, whatever it is given.
 */
export function parseTraceContext(headers: {
  traceparent?: string | null | undefined;
  tracestate?: string | null | undefined;
}): TraceContext | undefined {
  const raw = typeof headers.traceparent === "string" ? headers.traceparent.trim() : undefined;
  if (raw === undefined) return undefined;
  const match = FUTURE_TRACEPARENT.exec(raw);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags] = match;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === "ff" || (version === "00" && raw.length !== 55)) return undefined;
  const traceparent = `00-${traceId}-${spanId}-${flags}`;
  if (!validTraceparent(traceparent)) return undefined;
  const state = typeof headers.tracestate === "string" ? headers.tracestate.trim() : undefined;
  return state !== undefined && state !== "" && validTracestate(state)
    ? { traceparent, tracestate: state }
    : { traceparent };
}
