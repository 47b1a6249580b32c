/**
 * Turns whatever an AI SDK provider threw, streamed as an `error` part or errored its stream with
 * into a {@link ModelFailure} with a stable code, so the harness and the retry wrapper decide on
 * codes and `isRetryable`, never on vendor error shapes.
 */
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  TypeValidationError,
} from "@ai-sdk/provider";
import type { ModelFailure, ModelFailureCode } from "@sema-agent/core/model-kit";

/** Node, undici and browser names for a transport that failed or was cut mid-way. */
const NETWORK_ERROR_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_ABORTED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ConnectionRefused",
  "ConnectionClosed",
  "ConnectionReset",
]);

/** Messages fetch implementations use for a body or connection that died (undici says "terminated"). */
const NETWORK_ERROR_MESSAGES = new Set(["terminated", "fetch failed", "failed to fetch", "network error"]);

/** The failure for a call whose signal was aborted. Never retryable: the caller asked to stop. */
export function abortedFailure(): ModelFailure {
  return { code: "aborted", message: "the model call was aborted", isRetryable: false };
}

/**
 * Classify any error a provider produced. `signal` decides abort first: once the caller aborted,
 * whatever error the cut-off request surfaced is a consequence of that, not a fault to retry.
 */
export function toFailure(error: unknown, signal: AbortSignal, now: () => number = Date.now): ModelFailure {
  if (signal.aborted) return abortedFailure();
  const message = errorMessage(error);

  if (APICallError.isInstance(error)) {
    // The body died after a 200 ("Failed to process successful response", caused by undici's
    // "terminated"): the connection failed, not the HTTP exchange, so no status is reported.
    if (isNetworkError(error.cause)) return { code: "connection", message, isRetryable: true };
    // A success status that still failed means the body could not be read as the API promises.
    const status = error.statusCode;
    if (status !== undefined && status < 400) return { code: "malformed_response", message, isRetryable: true, status };
    return fromHttp({
      message,
      status: error.statusCode,
      isRetryable: error.isRetryable,
      headers: error.responseHeaders,
      networkFallback: true,
      now,
    });
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error)
  ) {
    // Garbage on the wire is usually a proxy or a truncated response: worth another try.
    return { code: "malformed_response", message, isRetryable: true };
  }
  if (LoadAPIKeyError.isInstance(error)) return { code: "auth", message, isRetryable: false };
  if (isNamed(error, "AbortError") || isNamed(error, "ResponseAborted")) {
    // Aborted without our signal: the provider or fetch gave up on its own (an inner timeout).
    return { code: "connection", message, isRetryable: true };
  }
  if (isNamed(error, "TimeoutError")) return { code: "connection", message, isRetryable: true };
  if (isNetworkError(error)) return { code: "connection", message, isRetryable: true };

  // A provider's in-stream error object (`{ type: "error", error }` parts): a plain object with
  // the vendor's status and retryability, as `@ai-sdk/provider-utils` normalizes it.
  const record = asRecord(error);
  if (record !== undefined) {
    const status = typeof record.statusCode === "number" ? record.statusCode : undefined;
    const retryable = typeof record.isRetryable === "boolean" ? record.isRetryable : undefined;
    if (status !== undefined || retryable !== undefined) {
      return fromHttp({
        message,
        status,
        isRetryable: retryable,
        headers: asHeaders(record.responseHeaders),
        networkFallback: false,
        now,
      });
    }
  }
  return { code: "unknown", message, isRetryable: false };
}

/** True for the statuses that are worth retrying unchanged: 408, 409, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function fromHttp(input: {
  message: string;
  status: number | undefined;
  isRetryable: boolean | undefined;
  headers: Record<string, string> | undefined;
  /** An API call error without a status never got a response: the transport failed. */
  networkFallback: boolean;
  now: () => number;
}): ModelFailure {
  const { status } = input;
  const failure: ModelFailure = {
    code: status === undefined ? (input.networkFallback ? "connection" : "unknown") : codeForStatus(status),
    message: input.message,
    // The provider's own verdict wins (OpenAI's `x-should-retry`, Anthropic's error types); the
    // status rule covers errors that carry only a status.
    isRetryable: input.isRetryable ?? (status !== undefined && isRetryableStatus(status)),
  };
  if (status !== undefined) failure.status = status;
  const retryAfterMs = input.headers === undefined ? undefined : parseRetryAfter(input.headers, input.now());
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}

function codeForStatus(status: number): ModelFailureCode {
  if (status === 429) return "rate_limited";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "connection";
  if (status === 409 || status >= 500) return "server_error";
  if (status >= 400) return "bad_request";
  // A 1xx-3xx reported as a failure means the response was not what the API promises.
  return "malformed_response";
}

/**
 * The wait a response asked for, in milliseconds: `retry-after-ms` (OpenAI's, fractional ms) wins
 * over `retry-after` (seconds, or an HTTP date). Header names are matched case-insensitively.
 * Unparseable or negative values are ignored; a date in the past means 0.
 */
export function parseRetryAfter(headers: Record<string, string>, now: number): number | undefined {
  const lower = new Map(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value.trim()]));
  const ms = lower.get("retry-after-ms");
  if (ms !== undefined && ms !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = lower.get("retry-after");
  if (after === undefined || after === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  // An HTTP date names its day and month; without letters, `Date.parse("-1")` would read a year.
  if (!/[a-z]/i.test(after)) return undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function isNetworkError(error: unknown): boolean {
  // Walk the cause chain: undici wraps the socket error ("other side closed") in a TypeError.
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    const record = asRecord(current);
    if (record === undefined) return false;
    if (typeof record.code === "string" && NETWORK_ERROR_CODES.has(record.code)) return true;
    if (current instanceof TypeError && NETWORK_ERROR_MESSAGES.has(current.message.toLowerCase())) return true;
    current = record.cause;
  }
  return false;
}

function isNamed(error: unknown, name: string): boolean {
  return asRecord(error)?.name === name;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

function asHeaders(value: unknown): Record<string, string> | undefined {
  const record = asRecord(value);
  if (record === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [key, entry] of Object.entries(record)) if (typeof entry === "string") headers[key] = entry;
  return headers;
}

/**
 * The error's message, followed by its causes' ("…: terminated: other side closed"). A cause the
 * text already says is left out: the AI SDK puts its cause in its own message ("Cannot connect to
 * API: connect ECONNREFUSED …"), which would otherwise read twice.
 */
function errorMessage(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    // A cause without a message of its own (a bare `{ code }`) adds nothing a reader needs.
    const message = depth === 0 ? ownMessage(current) : causeMessage(current);
    if (message !== "" && !messages.some((said) => said.includes(message))) messages.push(message);
    current = asRecord(current)?.cause;
  }
  return messages.length === 0 ? "the model call failed" : messages.join(": ");
}

function causeMessage(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  const message = asRecord(cause)?.message;
  return typeof message === "string" ? message : "";
}

function ownMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  const record = asRecord(error);
  if (record !== undefined && typeof record.message === "string") return record.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
