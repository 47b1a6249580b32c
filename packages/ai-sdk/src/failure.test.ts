import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  TypeValidationError,
} from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { isRetryableStatus, parseRetryAfter, toFailure } from "./failure.ts";

const live = new AbortController().signal;

function apiError(statusCode: number | undefined, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) {
  return new APICallError({
    message: `status ${statusCode}`,
    url: "http://x",
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...extra,
  });
}

describe("toFailure", () => {
  it.each([
    [429, "rate_limited", true],
    [401, "auth", false],
    [403, "auth", false],
    [400, "bad_request", false],
    [404, "bad_request", false],
    [413, "bad_request", false],
    [422, "bad_request", false],
    [408, "connection", true],
    [409, "server_error", true],
    [500, "server_error", true],
    [502, "server_error", true],
    [503, "server_error", true],
    [529, "server_error", true],
  ] as const)("maps HTTP %i to %s (retryable: %s)", (status, code, isRetryable) => {
    expect(toFailure(apiError(status), live)).toEqual({ code, message: `status ${status}`, isRetryable, status });
  });

  it("lets the provider's retry verdict win over the status rule", () => {
    // OpenAI's `x-should-retry: false` on a 500 reaches us as isRetryable false.
    expect(toFailure(apiError(500, { isRetryable: false }), live)).toMatchObject({
      code: "server_error",
      isRetryable: false,
    });
  });

  it("reads retry-after from an API error's response headers", () => {
    const failure = toFailure(apiError(429, { responseHeaders: { "retry-after": "12" } }), live);
    expect(failure).toMatchObject({ code: "rate_limited", retryAfterMs: 12_000 });
    expect(toFailure(apiError(429), live)).not.toHaveProperty("retryAfterMs");
  });

  it("maps an API error with no response to a retryable connection error", () => {
    const refused = apiError(undefined, {
      message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:1",
      isRetryable: true,
    });
    expect(toFailure(refused, live)).toEqual({
      code: "connection",
      message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:1",
      isRetryable: true,
    });
  });

  it("says a cause once when the error's own message already carries it (a refused connection)", () => {
    // The AI SDK's own shape: its message quotes the cause, which is also chained as `cause`.
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:59999"), { code: "ECONNREFUSED" });
    const refused = apiError(undefined, {
      message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:59999",
      isRetryable: true,
      cause,
    });
    expect(toFailure(refused, live)).toEqual({
      code: "connection",
      message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:59999",
      isRetryable: true,
    });
    // A bare socket error with the same cause twice in its chain says it once too.
    const twice = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:59999", { cause }), { code: "ECONNREFUSED" });
    expect(toFailure(twice, live).message).toBe("connect ECONNREFUSED 127.0.0.1:59999");
  });

  it("maps a body that died after a 200 to connection, without the misleading status", () => {
    const cause = new TypeError("terminated", {
      cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
    });
    const failure = toFailure(apiError(200, { message: "Failed to process successful response", cause }), live);
    expect(failure).toEqual({
      code: "connection",
      message: "Failed to process successful response: terminated: other side closed",
      isRetryable: true,
    });
  });

  it("maps an unreadable 200 to a retryable malformed_response", () => {
    const failure = toFailure(
      apiError(200, { message: "Failed to process successful response", cause: new Error("x") }),
      live,
    );
    expect(failure).toMatchObject({ code: "malformed_response", isRetryable: true, status: 200 });
  });

  it.each([
    ["JSONParseError", new JSONParseError({ text: "{", cause: new SyntaxError("Unexpected end") })],
    ["TypeValidationError", new TypeValidationError({ value: {}, cause: new Error("expected type") })],
    ["EmptyResponseBodyError", new EmptyResponseBodyError()],
    ["InvalidResponseDataError", new InvalidResponseDataError({ data: {} })],
  ])("maps %s to a retryable malformed_response", (_name, error) => {
    expect(toFailure(error, live)).toMatchObject({ code: "malformed_response", isRetryable: true });
  });

  it("maps a missing API key to auth", () => {
    expect(toFailure(new LoadAPIKeyError({ message: "no key" }), live)).toEqual({
      code: "auth",
      message: "no key",
      isRetryable: false,
    });
  });

  it("maps socket errors anywhere in the cause chain to connection", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(toFailure(new Error("stream failed", { cause: reset }), live)).toEqual({
      code: "connection",
      message: "stream failed: read ECONNRESET",
      isRetryable: true,
    });
    expect(toFailure(new TypeError("fetch failed"), live)).toMatchObject({ code: "connection", isRetryable: true });
  });

  it("maps a provider's in-stream error object by its status and verdict", () => {
    const overloaded = { message: "Overloaded", type: "overloaded_error", statusCode: 529, isRetryable: true };
    expect(toFailure(overloaded, live)).toEqual({
      code: "server_error",
      message: "Overloaded",
      isRetryable: true,
      status: 529,
    });
    expect(toFailure({ message: "bad key", statusCode: 401, isRetryable: false }, live)).toMatchObject({
      code: "auth",
      isRetryable: false,
    });
    expect(toFailure({ message: "odd", isRetryable: true }, live)).toEqual({
      code: "unknown",
      message: "odd",
      isRetryable: true,
    });
  });

  it("reports abort once the caller's signal aborted, whatever the error", () => {
    const controller = new AbortController();
    controller.abort();
    expect(toFailure(apiError(500), controller.signal)).toEqual({
      code: "aborted",
      message: "the model call was aborted",
      isRetryable: false,
    });
  });

  it("treats a timeout or abort the caller did not ask for as a retryable connection error", () => {
    expect(toFailure(new DOMException("timed out", "TimeoutError"), live)).toMatchObject({
      code: "connection",
      isRetryable: true,
    });
    expect(toFailure(new DOMException("aborted", "AbortError"), live)).toMatchObject({
      code: "connection",
      isRetryable: true,
    });
  });

  it("maps anything else to a non-retryable unknown, with a readable message", () => {
    expect(toFailure(new Error("boom"), live)).toEqual({ code: "unknown", message: "boom", isRetryable: false });
    expect(toFailure({ weird: 1 }, live)).toEqual({ code: "unknown", message: '{"weird":1}', isRetryable: false });
    expect(toFailure(undefined, live)).toEqual({
      code: "unknown",
      message: "the model call failed",
      isRetryable: false,
    });
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("reads seconds, fractional seconds and milliseconds, the latter first", () => {
    expect(parseRetryAfter({ "retry-after": "7" }, now)).toBe(7_000);
    expect(parseRetryAfter({ "retry-after": "1.5" }, now)).toBe(1_500);
    expect(parseRetryAfter({ "retry-after-ms": "250.4" }, now)).toBe(251);
    expect(parseRetryAfter({ "retry-after": "7", "retry-after-ms": "1200" }, now)).toBe(1_200);
    expect(parseRetryAfter({ "Retry-After": "3" }, now)).toBe(3_000);
  });

  it("reads an HTTP date relative to now, a past one as 0", () => {
    expect(parseRetryAfter({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }, now)).toBe(30_000);
    expect(parseRetryAfter({ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }, now)).toBe(0);
  });

  it("ignores absent, empty, negative and unparseable values", () => {
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "-1" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after-ms": "nope", "retry-after": "2" }, now)).toBe(2_000);
  });
});

describe("isRetryableStatus", () => {
  it("is true for 408, 409, 429 and 5xx only", () => {
    expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 503, 529].filter(isRetryableStatus)).toEqual([
      408, 409, 429, 500, 503, 529,
    ]);
  });
});
