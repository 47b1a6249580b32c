/**
 * The one table of what each Sema error code is on every protocol edge: its HTTP status (`/v1`,
 * AG-UI, the AI SDK chat route, and MCP, which reports it as `httpStatus` and picks its JSON-RPC
 * code from it) and its A2A error (the JSON-RPC code follows from the class; the REST binding's
 * status is the class's own unless the entry gives one). A code missing here fails the typecheck
 * and `error-table.test.ts`; nothing falls through to "internal error" by omission.
 */
import type { SemaErrorCode } from "@sema-agent/core";

/**
 * The A2A error a Sema error becomes: one of the SDK's classes by name, or `Internal` for a bare
 * internal error whose message says nothing (an outage).
 */
export type A2AErrorKind =
  | "TaskNotFound"
  | "ContentTypeNotSupported"
  | "UnsupportedOperation"
  | "RequestMalformed"
  | "InvalidAgentResponse"
  | "Internal";

/** One code's row of {@link SEMA_ERROR_TABLE}. */
export interface ErrorEdges {
  /** The HTTP status on `/v1` (and every HTTP edge beside it). */
  status: number;
  /** The A2A error it is. */
  a2a: A2AErrorKind;
  /** The A2A REST binding's status, when not the A2A class's default (400, 404 or 500). */
  a2aRestStatus?: number;
}

/** Every Sema error code on every protocol edge. */
export const SEMA_ERROR_TABLE: Readonly<Record<SemaErrorCode, ErrorEdges>> = {
  // Another principal's task reads exactly like an unknown id, on every edge.
  TaskNotFound: { status: 404, a2a: "TaskNotFound" },
  ApprovalNotFound: { status: 404, a2a: "RequestMalformed" },
  // Another principal's record reads like an unknown name, as a task does.
  RecordNotFound: { status: 404, a2a: "RequestMalformed" },
  InvalidInput: { status: 400, a2a: "RequestMalformed" },
  InvalidEvent: { status: 400, a2a: "RequestMalformed" },
  Forbidden: { status: 403, a2a: "UnsupportedOperation" },
  TaskExists: { status: 409, a2a: "RequestMalformed" },
  TaskFinished: { status: 409, a2a: "UnsupportedOperation" },
  InputRejected: { status: 409, a2a: "UnsupportedOperation" },
  ApprovalConflict: { status: 409, a2a: "RequestMalformed" },
  DigestMismatch: { status: 409, a2a: "RequestMalformed" },
  RecordConflict: { status: 409, a2a: "RequestMalformed" },
  TaskLive: { status: 409, a2a: "UnsupportedOperation" },
  // Lost races and held leases: retryable conflicts, the caller may try again.
  SeqConflict: { status: 409, a2a: "UnsupportedOperation", a2aRestStatus: 409 },
  LeaseHeld: { status: 409, a2a: "UnsupportedOperation", a2aRestStatus: 409 },
  LeaseLost: { status: 409, a2a: "UnsupportedOperation", a2aRestStatus: 409 },
  BudgetExceeded: { status: 409, a2a: "UnsupportedOperation" },
  ContentTooLarge: { status: 413, a2a: "RequestMalformed" },
  ContentUnsupported: { status: 415, a2a: "ContentTypeNotSupported" },
  // A principal's quota: too many requests, until a task ends (JSON-RPC answers 200 with it).
  QuotaExceeded: { status: 429, a2a: "UnsupportedOperation", a2aRestStatus: 429 },
  // The server's own configuration or store is wrong (an agent, a tool, a missing blob): never
  // the request's fault, and not a bug of the binding either.
  ConfigError: { status: 500, a2a: "InvalidAgentResponse" },
  BlobNotFound: { status: 500, a2a: "InvalidAgentResponse" },
  // What the agent depends on failed (its model, a tool, a hook) or its answer did not fit.
  ModelError: { status: 502, a2a: "InvalidAgentResponse", a2aRestStatus: 502 },
  ToolError: { status: 502, a2a: "InvalidAgentResponse", a2aRestStatus: 502 },
  HookFailed: { status: 502, a2a: "InvalidAgentResponse", a2aRestStatus: 502 },
  OutputInvalid: { status: 502, a2a: "InvalidAgentResponse", a2aRestStatus: 502 },
  // An outage (or a store closed under a stream at shutdown), not a bug: nothing to log.
  StoreUnavailable: { status: 503, a2a: "Internal" },
};
