/**
 * Errors across the writer thread's boundary. `postMessage` clones an `Error` as a plain one (its
 * class and own fields are lost), so the thread sends an error as data and the main thread builds
 * the same typed error again: same class, `code`, fields and message, so callers (and the
 * conformance suite) cannot tell it came from another thread.
 */
import {
  ConfigError,
  type ConfigProblem,
  ContentTooLargeError,
  InvalidEventError,
  InvalidInputError,
  isSemaError,
  LeaseHeldError,
  LeaseLostError,
  QuotaExceededError,
  RecordConflictError,
  SemaError,
  type SemaErrorCode,
  SeqConflictError,
  StoreUnavailableError,
  TaskExistsError,
  TaskLiveError,
  TaskNotFoundError,
} from "@sema-agent/core/protocol";

/** An error as it crosses: a Sema error's code and details, or any other error's name and message. */
export type WireError =
  | {
      sema: true;
      code: SemaErrorCode;
      message: string;
      isRetryable: boolean;
      details: Record<string, unknown>;
      /** A `StoreUnavailable`'s cause (SQLite's own error), as its message and code. */
      cause?: { message: string; code?: string };
    }
  | { sema: false; name: string; message: string; stack?: string };

/** The data of `error`, for `postMessage`. */
export function toWire(error: unknown): WireError {
  if (isSemaError(error)) {
    const wire: WireError = {
      sema: true,
      code: error.code,
      message: error.message,
      isRetryable: error.isRetryable,
      details: { ...error.details },
    };
    const cause = error.cause;
    if (cause instanceof Error) {
      const code = (cause as { code?: unknown }).code;
      wire.cause = typeof code === "string" ? { message: cause.message, code } : { message: cause.message };
    }
    return wire;
  }
  if (error instanceof Error) {
    return error.stack === undefined
      ? { sema: false, name: error.name, message: error.message }
      : { sema: false, name: error.name, message: error.message, stack: error.stack };
  }
  return { sema: false, name: "Error", message: String(error) };
}

type Details = Record<string, unknown>;
const text = (details: Details, key: string) => String(details[key]);
const num = (details: Details, key: string) => Number(details[key]);

/** The error classes a write can raise, rebuilt from their details (the constructor makes the message). */
const REBUILD: Partial<Record<SemaErrorCode, (details: Details, wire: WireError & { sema: true }) => SemaError>> = {
  TaskNotFound: (d) => new TaskNotFoundError(text(d, "taskId")),
  TaskExists: (d) => new TaskExistsError(text(d, "taskId")),
  SeqConflict: (d) => new SeqConflictError(text(d, "taskId"), num(d, "expectedSeq"), num(d, "actualSeq")),
  LeaseHeld: (d) =>
    new LeaseHeldError(
      text(d, "taskId"),
      d.holder as { id: string; host?: string; pid?: number },
      text(d, "expiresAt"),
    ),
  LeaseLost: (d) => new LeaseLostError(text(d, "taskId")),
  QuotaExceeded: (d) => new QuotaExceededError(text(d, "principal"), text(d, "quota"), num(d, "used"), num(d, "limit")),
  RecordConflict: (d) =>
    new RecordConflictError(text(d, "kind"), text(d, "name"), num(d, "expected"), num(d, "actual")),
  ContentTooLarge: (d) =>
    new ContentTooLargeError(
      d.what as "part" | "input" | "event" | "blob",
      num(d, "size"),
      num(d, "limit"),
      d.index === undefined ? undefined : num(d, "index"),
    ),
  TaskLive: (d) => new TaskLiveError(text(d, "taskId"), text(d, "reason")),
  InvalidEvent: (d) => new InvalidEventError(text(d, "path"), text(d, "reason"), num(d, "index")),
  InvalidInput: (d, wire) => new InvalidInputError(wire.message, d),
  ConfigError: (d) => new ConfigError(text(d, "where"), d.problems as ConfigProblem[]),
  StoreUnavailable: (_d, wire) => {
    const cause =
      wire.cause === undefined ? undefined : Object.assign(new Error(wire.cause.message), { code: wire.cause.code });
    return new StoreUnavailableError(wire.message, cause);
  },
};

/** The typed error `wire` describes, built on this thread. */
export function fromWire(wire: WireError): Error {
  if (!wire.sema) {
    const error = new Error(wire.message);
    error.name = wire.name;
    if (wire.stack !== undefined) error.stack = wire.stack;
    return error;
  }
  const rebuild = REBUILD[wire.code];
  const error =
    rebuild?.(wire.details, wire) ??
    new SemaError(wire.code, wire.message, { isRetryable: wire.isRetryable, details: wire.details });
  // The constructors make the same message from the same details; should one ever not, the
  // thread's message is the truth.
  if (error.message !== wire.message) error.message = wire.message;
  return error;
}
