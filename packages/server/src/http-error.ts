/**
 * The API's one error type and its mapping from Sema's typed errors (by `error-table.ts`, the table
 * every protocol edge reads). Every failure a route can meet ends here, so a status is chosen in
 * exactly one place and the body is always
 * `{ error: { code, message, details? } }`.
 */
import { isSemaError, type SemaErrorCode } from "@sema-agent/core";
import { SEMA_ERROR_TABLE } from "./error-table.ts";

/** Codes the serving layer adds to Sema's own. */
export type ServerErrorCode =
  | "Unauthorized"
  | "NotFound"
  | "PayloadTooLarge"
  | "UnsupportedMediaType"
  | "RateLimited"
  /** The task runs as an agent this server no longer serves (a replay or a fork of it): 409. */
  | "UnknownAgent"
  | "Unavailable"
  | "Internal";

/** Every `error.code` an API response can carry. */
export type ApiErrorCode = SemaErrorCode | ServerErrorCode;

/** The JSON body of every error response. */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> };
}

/** An error that already knows its HTTP status and body. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers (`Retry-After`, `WWW-Authenticate`). */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ApiErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The JSON body of the error response: `{ error: { code, message, details? } }`. */
  body(): ApiErrorBody {
    return this.details === undefined
      ? { error: { code: this.code, message: this.message } }
      : { error: { code: this.code, message: this.message, details: this.details } };
  }
}

/** A 400 for a request that failed its schema or an ingress rule, naming the failing path. */
export function badRequest(message: string, path: string, details: Record<string, unknown> = {}): HttpError {
  return new HttpError(400, "InvalidInput", message, { details: { path, ...details } });
}

/**
 * Any thrown value → an `HttpError`. Sema errors keep their code and details; anything else is a
 * bug or an outage, reported as a bare 500 whose message reveals nothing of the internals.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isSemaError(error)) {
    const details = Object.keys(error.details).length === 0 ? undefined : { ...error.details };
    const headers: Record<string, string> =
      error.isRetryable && error.code === "StoreUnavailable" ? { "Retry-After": "1" } : {};
    return new HttpError(SEMA_ERROR_TABLE[error.code].status, error.code, error.message, {
      ...(details === undefined ? {} : { details }),
      headers,
    });
  }
  return new HttpError(500, "Internal", "internal error");
}

/** The response for an error. */
export function errorResponse(error: HttpError): Response {
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...error.headers },
  });
}
