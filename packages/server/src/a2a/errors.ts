/**
 * Sema's typed errors as A2A's: what a JSON-RPC error code or a REST status is chosen from (the
 * SDK's `toJsonRpcError` / `toRestErrorBody`). Anything untyped is a bug or an outage: it becomes
 * a bare internal error whose message says nothing of the internals (and is logged here).
 */
import {
  A2AError,
  ContentTypeNotSupportedError,
  RequestMalformedError,
  RestUnsupportedOperationError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { isSemaError } from "@sema-agent/core";
import { HttpError } from "../http-error.ts";

/** The message of every internal error: nothing of the cause is shown. */
export const INTERNAL_MESSAGE = "internal error";

/** Any thrown value → an `A2AError`, or a plain `Error("internal error")` for a bug. */
export function toA2AError(error: unknown): Error {
  if (error instanceof A2AError) return error;
  if (isSemaError(error)) {
    switch (error.code) {
      case "TaskNotFound":
        // Another principal's task is reported exactly like an unknown id.
        return new TaskNotFoundError("task not found");
      case "ContentUnsupported":
        return new ContentTypeNotSupportedError(error.message);
      case "Forbidden":
      case "InputRejected":
      case "TaskFinished":
      case "BudgetExceeded":
        return new UnsupportedOperationError(error.message);
      case "InvalidInput":
      case "InvalidEvent":
      case "ApprovalNotFound":
      case "ApprovalConflict":
      case "DigestMismatch":
      case "ContentTooLarge":
      case "TaskExists":
        return new RequestMalformedError(error.message);
      case "QuotaExceeded":
        // A principal's quota: 429 on the REST binding (JSON-RPC answers 200 with the error, its
        // code UnsupportedOperation and the quota in the error's metadata).
        return new RestUnsupportedOperationError({
          message: error.message,
          statusCode: 429,
          metadata: { code: error.code, quota: String(error.details.quota ?? "") },
        });
      case "StoreUnavailable":
        // An outage (or a store closed under a stream at shutdown), not a bug: nothing to log.
        return new Error(INTERNAL_MESSAGE);
      default:
        break;
    }
  }
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
