/**
 * Sema's typed errors as A2A's, by the one table of every edge (`error-table.ts`): what a JSON-RPC
 * error code or a REST status is chosen from (the SDK's `toJsonRpcError` / `toRestErrorBody`). Anything untyped is a bug or an outage: it becomes
 * a bare internal error whose message says nothing of the internals (and is logged here).
 */
import {
  A2AError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  RequestMalformedError,
  RestContentTypeNotSupportedError,
  RestInvalidAgentResponseError,
  RestRequestMalformedError,
  RestTaskNotFoundError,
  RestUnsupportedOperationError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { isSemaError, type SemaError } from "@sema-agent/core";
import { type A2AErrorKind, SEMA_ERROR_TABLE } from "../error-table.ts";
import { HttpError } from "../http-error.ts";

/** The message of every internal error: nothing of the cause is shown. */
export const INTERNAL_MESSAGE = "internal error";

type A2AOptions = { message: string; metadata: Record<string, string> };
type Classes = {
  plain: new (options: A2AOptions) => A2AError;
  rest: new (options: A2AOptions & { statusCode: number }) => A2AError;
};

/** The SDK's classes for each kind: the plain one, and the REST one when the status is the table's. */
const CLASSES: Readonly<Record<Exclude<A2AErrorKind, "Internal">, Classes>> = {
  TaskNotFound: { plain: TaskNotFoundError, rest: RestTaskNotFoundError },
  ContentTypeNotSupported: { plain: ContentTypeNotSupportedError, rest: RestContentTypeNotSupportedError },
  UnsupportedOperation: { plain: UnsupportedOperationError, rest: RestUnsupportedOperationError },
  RequestMalformed: { plain: RequestMalformedError, rest: RestRequestMalformedError },
  InvalidAgentResponse: { plain: InvalidAgentResponseError, rest: RestInvalidAgentResponseError },
};

/** A Sema error as the A2A error its row of the table names, carrying its Sema `code`. */
function fromSemaError(error: SemaError): Error {
  const row = SEMA_ERROR_TABLE[error.code];
  if (row.a2a === "Internal") return new Error(INTERNAL_MESSAGE);
  // Another principal's task is reported exactly like an unknown id: no id, no details.
  const message = error.code === "TaskNotFound" ? "task not found" : error.message;
  const metadata: Record<string, string> = { code: error.code };
  if (error.code === "QuotaExceeded") metadata.quota = String(error.details.quota ?? "");
  const classes = CLASSES[row.a2a];
  return row.a2aRestStatus === undefined
    ? new classes.plain({ message, metadata })
    : new classes.rest({ message, metadata, statusCode: row.a2aRestStatus });
}

/** Any thrown value → an `A2AError`, or a plain `Error("internal error")` for a bug. */
export function toA2AError(error: unknown): Error {
  if (error instanceof A2AError) return error;
  if (isSemaError(error)) return fromSemaError(error);
  if (error instanceof HttpError) {
    if (error.status === 404) return new TaskNotFoundError("task not found");
    if (error.status === 415) return new ContentTypeNotSupportedError(error.message);
    if (error.status === 403) return new UnsupportedOperationError(error.message);
    if (error.status >= 400 && error.status < 500) return new RequestMalformedError(error.message);
  }
  console.error("sema server: unhandled error in the A2A binding", error);
  return new Error(INTERNAL_MESSAGE);
}

/** `TaskFinished` from a cancel is A2A's `TaskNotCancelableError`. */
export function cancelError(error: unknown): Error {
  if (isSemaError(error) && error.code === "TaskFinished") return new TaskNotCancelableError("the task has ended");
  return toA2AError(error);
}
