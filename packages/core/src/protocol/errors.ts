/**
 * Typed errors with stable `code`s. Hosts map codes to HTTP statuses and exit codes; `isRetryable`
 * says whether the same call may succeed later unchanged.
 */

/** Every stable error code Sema raises. */
export type SemaErrorCode =
  | "TaskNotFound"
  | "TaskExists"
  | "SeqConflict"
  | "LeaseHeld"
  | "LeaseLost"
  | "InvalidEvent"
  | "InvalidInput"
  | "StoreUnavailable"
  | "InputRejected"
  | "TaskFinished"
  | "ModelError"
  | "ToolError"
  | "HookFailed"
  | "BudgetExceeded"
  | "OutputInvalid"
  | "ApprovalNotFound"
  | "ApprovalConflict"
  | "DigestMismatch"
  | "Forbidden"
  | "ConfigError"
  | "ContentTooLarge"
  | "ContentUnsupported"
  | "BlobNotFound"
  | "QuotaExceeded"
  | "RecordNotFound"
  | "RecordConflict"
  | "TaskLive";

/** Every code of the union, once (a missing or extra one fails the typecheck). */
const SEMA_ERROR_CODES: Readonly<Record<SemaErrorCode, true>> = {
  TaskNotFound: true,
  TaskExists: true,
  SeqConflict: true,
  LeaseHeld: true,
  LeaseLost: true,
  InvalidEvent: true,
  InvalidInput: true,
  StoreUnavailable: true,
  InputRejected: true,
  TaskFinished: true,
  ModelError: true,
  ToolError: true,
  HookFailed: true,
  BudgetExceeded: true,
  OutputInvalid: true,
  ApprovalNotFound: true,
  ApprovalConflict: true,
  DigestMismatch: true,
  Forbidden: true,
  ConfigError: true,
  ContentTooLarge: true,
  ContentUnsupported: true,
  BlobNotFound: true,
  QuotaExceeded: true,
  RecordNotFound: true,
  RecordConflict: true,
  TaskLive: true,
};

/**
 * Every stable error code, once each: for a table that must cover them all (a protocol edge's
 * mapping to its statuses) to be checked at run time as well as by its type.
 */
export const SEMA_ERROR_CODE_LIST: readonly SemaErrorCode[] = Object.freeze(
  Object.keys(SEMA_ERROR_CODES) as SemaErrorCode[],
);

/** Whether `code` is one of Sema's stable error codes (a code read from a log may be anything). */
export function isSemaErrorCode(code: string): code is SemaErrorCode {
  return Object.hasOwn(SEMA_ERROR_CODES, code);
}

/**
 * The brand every Sema error carries. A registered symbol, so two installed copies of the package
 * (two versions in one dependency tree, a bundled and an external copy) still recognize each
 * other's errors: `isSemaError` and `instanceof SemaError` look for it, not for one class object.
 */
const SEMA_ERROR: unique symbol = Symbol.for("@sema-agent/core:SemaError");

/** The base of every Sema error. */
export class SemaError extends Error {
  /** The brand (see `isSemaError`). */
  readonly [SEMA_ERROR] = true;
  readonly code: SemaErrorCode;
  readonly isRetryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: SemaErrorCode,
    message: string,
    options: { isRetryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = `${code}Error`;
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.details = options.details ?? {};
  }

  /** A plain-JSON form for logs and HTTP bodies. */
  toJSON(): { code: SemaErrorCode; message: string; details?: Record<string, unknown> } {
    return Object.keys(this.details).length === 0
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: { ...this.details } };
  }
}

/**
 * `x instanceof SemaError` holds for a Sema error of any installed copy of the package (by its
 * brand); for the subclasses, which inherit this, `instanceof` keeps its usual meaning.
 */
Object.defineProperty(SemaError, Symbol.hasInstance, {
  value: function hasInstance(this: unknown, value: unknown): boolean {
    return this === SemaError ? hasBrand(value) : Function.prototype[Symbol.hasInstance].call(this, value);
  },
});

export class TaskNotFoundError extends SemaError {
  constructor(taskId: string) {
    super("TaskNotFound", `task ${taskId} not found`, { details: { taskId } });
  }
}

export class TaskExistsError extends SemaError {
  constructor(taskId: string) {
    super("TaskExists", `task ${taskId} already exists`, { details: { taskId } });
  }
}

/** A conditional append lost a race: the log is no longer at `expectedSeq`. Re-read and retry. */
export class SeqConflictError extends SemaError {
  readonly expectedSeq: number;
  readonly actualSeq: number;
  constructor(taskId: string, expectedSeq: number, actualSeq: number) {
    super("SeqConflict", `task ${taskId}: expected the log at seq ${expectedSeq}, it is at ${actualSeq}`, {
      isRetryable: true,
      details: { taskId, expectedSeq, actualSeq },
    });
    this.expectedSeq = expectedSeq;
    this.actualSeq = actualSeq;
  }
}

/** Another holder has a live lease on the task. */
export class LeaseHeldError extends SemaError {
  readonly holder: { id: string; host?: string; pid?: number };
  readonly expiresAt: string;
  constructor(taskId: string, holder: { id: string; host?: string; pid?: number }, expiresAt: string) {
    super("LeaseHeld", `task ${taskId} is leased by ${holder.id} until ${expiresAt}`, {
      isRetryable: true,
      details: { taskId, holder, expiresAt },
    });
    this.holder = holder;
    this.expiresAt = expiresAt;
  }
}

/** The caller's lease expired, was released or was taken over: it must stop before its next side effect. */
export class LeaseLostError extends SemaError {
  constructor(taskId: string) {
    super("LeaseLost", `task ${taskId}: the lease is no longer held by this holder`, { details: { taskId } });
  }
}

/** An event failed its schema; nothing was written. `path` names the failing field. */
export class InvalidEventError extends SemaError {
  readonly path: string;
  constructor(path: string, reason: string, index: number) {
    super("InvalidEvent", `invalid event at index ${index}: ${path === "" ? "(root)" : path}: ${reason}`, {
      details: { path, reason, index },
    });
    this.path = path;
  }
}

/** A caller's argument was malformed (not an event: an id, a limit, a lease TTL …). */
export class InvalidInputError extends SemaError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("InvalidInput", message, { details });
  }
}

/** The store could not be reached or used (closed, corrupt, connection lost). Retryable. */
export class StoreUnavailableError extends SemaError {
  constructor(message: string, cause?: unknown) {
    super("StoreUnavailable", message, { isRetryable: true, cause });
  }
}

function hasBrand(value: unknown): value is SemaError {
  return typeof value === "object" && value !== null && (value as { [SEMA_ERROR]?: unknown })[SEMA_ERROR] === true;
}

/**
 * True when `error` is a Sema error (from any installed copy of the package, by its brand) with
 * the given code.
 */
export function isSemaError<C extends SemaErrorCode>(error: unknown, code?: C): error is SemaError & { code: C } {
  return hasBrand(error) && (code === undefined || error.code === code);
}

/** No approval was requested for this call in this task. */
export class ApprovalNotFoundError extends SemaError {
  constructor(taskId: string, callId: string) {
    super("ApprovalNotFound", `task ${taskId} has no approval request for call ${callId}`, {
      details: { taskId, callId },
    });
  }
}

/** The call was already decided (or has already run). */
export class ApprovalConflictError extends SemaError {
  constructor(taskId: string, callId: string, decision: string) {
    super("ApprovalConflict", `call ${callId} of task ${taskId} is already decided: ${decision}`, {
      details: { taskId, callId, decision },
    });
  }
}

/** The decision names an input other than the one recorded: it approves nothing. */
export class DigestMismatchError extends SemaError {
  constructor(taskId: string, callId: string) {
    super("DigestMismatch", `the digest does not match the recorded input of call ${callId}: refused`, {
      details: { taskId, callId },
    });
  }
}

/** The caller may not do this (decide this approval, use this lane …). */
export class ForbiddenError extends SemaError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("Forbidden", message, { details });
  }
}

/** The input arrived while a leg ran and its policy was `reject`. */
export class InputRejectedError extends SemaError {
  constructor(taskId: string, inputId: string) {
    super("InputRejected", `task ${taskId} is running and the input's policy is reject`, {
      details: { taskId, inputId },
    });
  }
}

/**
 * The task has ended and cannot take this: an input (only a wake reopens a completed or failed
 * task), a cancel, an approval decision.
 */
export class TaskFinishedError extends SemaError {
  constructor(taskId: string, status: string) {
    super("TaskFinished", `task ${taskId} is ${status}`, { details: { taskId, status } });
  }
}

/**
 * The model's final answer did not match the output schema, after every correction it was given.
 * `paths` are the failing locations (`$.items[0].price`; `$` for the whole answer).
 */
export class OutputInvalidError extends SemaError {
  readonly paths: readonly string[];

  constructor(message: string, paths: readonly string[]) {
    super("OutputInvalid", message, { details: { paths: [...paths] } });
    this.paths = paths;
  }
}

/** One thing wrong in a configuration: where (a dotted path from the value given) and what to do. */
export interface ConfigProblem {
  /** Dotted path from the value given, e.g. `agent.tools.0.execute`; `""` for the value itself. */
  readonly path: string;
  /** What is wrong and what to set, e.g. `is missing: pass a Model, e.g. fromAiSdk(...)`. */
  readonly message: string;
  /** The keys refused as unknown, by name, when that is the problem. */
  readonly unknownKeys?: readonly string[];
}

/**
 * A configuration given to Sema (an agent, a tool definition, a host's options, a token request,
 * a `sema.config.*`) is wrong: raised where it is given, before anything is written, never as a
 * TypeError from inside a leg. The message names each path and the fix, and every unknown key by
 * name; `problems` carries the same, structured. Not retryable: the same configuration fails again.
 */
export class ConfigError extends SemaError {
  /** Every problem found, in order (the message shows them all). */
  readonly problems: readonly ConfigProblem[];
  /** `where` names what was checked (`runLeg`, `defineTool`, `sema.config.json` …). */
  constructor(where: string, problems: readonly ConfigProblem[]) {
    super("ConfigError", sayProblems(where, problems), {
      details: { where, problems: problems.map((problem) => ({ ...problem })) },
    });
    // The code is already a full name: no "ConfigErrorError".
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** `where: path message; path message …`, the message of a `ConfigError` (and of a call's checked input). */
export function sayProblems(where: string, problems: readonly ConfigProblem[]): string {
  const said = problems.map((problem) =>
    problem.path === "" ? problem.message : `${problem.path} ${problem.message}`,
  );
  return `${where}: ${said.join("; ")}`;
}

/**
 * An image or file part, or all of one input's parts together, is larger than the limit
 * (`ContentLimits`); or a single event or blob is larger than its store's limit
 * (`maxEventBytes`, `maxBlobBytes`): nothing was recorded. Not retryable: the same content is
 * refused again.
 */
export class ContentTooLargeError extends SemaError {
  readonly size: number;
  readonly limit: number;
  constructor(what: "part" | "input" | "event" | "blob", size: number, limit: number, index?: number) {
    const which =
      what === "part"
        ? `content part ${index ?? 0}`
        : what === "input"
          ? "the input's content"
          : what === "event"
            ? `event ${index ?? 0} of the write (its JSON)`
            : "the blob";
    super("ContentTooLarge", `${which} is ${size} bytes, over the limit of ${limit}`, {
      details: { what, size, limit, ...(index === undefined ? {} : { index }) },
    });
    this.size = size;
    this.limit = limit;
  }
}

/**
 * Content that cannot be taken here: a store without a blob table (`putBlob` / `getBlob`), or a
 * URL the model's provider does not accept (pass the bytes, or let the ingress fetch it with
 * `fetchUrls`). Not retryable.
 */
export class ContentUnsupportedError extends SemaError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("ContentUnsupported", message, { details });
  }
}

/** The log references a blob the store does not hold (deleted, or a store copied without its blobs). */
export class BlobNotFoundError extends SemaError {
  constructor(digest: string) {
    super("BlobNotFound", `the store holds no blob with digest ${digest}`, { details: { digest } });
  }
}

/**
 * A principal's quota refuses the request: `quota` names which (`concurrentTasks` when a new task
 * would run past the principal's limit of running tasks). Retryable: the same request succeeds
 * once a running task ends or the quota is raised. Protocol edges map it to 429.
 */
export class QuotaExceededError extends SemaError {
  readonly quota: string;
  readonly limit: number;
  readonly used: number;
  constructor(principal: string, quota: string, used: number, limit: number) {
    super("QuotaExceeded", `principal ${principal} has ${used} of its ${quota} quota of ${limit}`, {
      isRetryable: true,
      details: { principal, quota, used, limit },
    });
    this.quota = quota;
    this.limit = limit;
    this.used = used;
  }
}

/**
 * No record of this kind and name (or version) for the principal: another principal's record
 * reads exactly like one that does not exist, as a task does.
 */
export class RecordNotFoundError extends SemaError {
  constructor(kind: string, name: string, version?: number) {
    const which = version === undefined ? name : `${name} version ${version}`;
    super("RecordNotFound", `no ${kind} ${which}`, {
      details: version === undefined ? { kind, name } : { kind, name, version },
    });
  }
}

/**
 * A conditional put found another latest version than it expected (`expectedVersion`): someone
 * wrote the name meanwhile, or it exists when it should be new. Re-read and decide again.
 */
export class RecordConflictError extends SemaError {
  constructor(kind: string, name: string, expected: number, actual: number) {
    super("RecordConflict", `${kind} ${name} is at version ${actual}, not ${expected}`, {
      details: { kind, name, expected, actual },
    });
  }
}

/**
 * A task cannot be deleted (or archived) because it, or a task of its family, is live: created,
 * running, parked, holding a live lease, with work pending, or a child whose parent is. `reason`
 * says which. Not retryable as it is: the same call succeeds only once the family has finished.
 * Protocol edges map it to 409.
 */
export class TaskLiveError extends SemaError {
  readonly reason: string;
  constructor(taskId: string, reason: string) {
    super("TaskLive", `task ${taskId} is live (${reason}); only finished tasks can be deleted`, {
      details: { taskId, reason },
    });
    this.reason = reason;
  }
}
