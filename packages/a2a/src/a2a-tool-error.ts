/**
 * `A2AToolError`: every way a delegation to a remote A2A agent can fail, as one typed Sema error
 * (code `ToolError`), so a host can tell an agent it could not reach (retry later) from a task
 * the remote agent failed or refused (do not).
 */
import { SemaError } from "@sema-agent/core";

/**
 * Why a delegation failed.
 * - `connect`: the agent card could not be fetched or read, or it offers no transport this
 *   client speaks.
 * - `unreachable`: a request to the remote agent failed on the way (connection refused, reset).
 * - `failed`, `rejected`, `canceled`: the remote task ended in that state.
 * - `auth-required`: the remote task waits for credentials this tool cannot give.
 * - `in-doubt`: a crash came between recording the send and hearing back, and the remote agent
 *   cannot say whether it got the message (no `ListTasks`): it is not sent again.
 * - `protocol`: the remote agent answered with an A2A error (an unknown task, an unsupported
 *   operation) or something that is not A2A.
 */
export type A2AFailureReason =
  | "connect"
  | "unreachable"
  | "failed"
  | "rejected"
  | "canceled"
  | "auth-required"
  | "in-doubt"
  | "protocol";

/** Not reaching the agent is worth a retry; the remote agent's own verdict is not. */
const RETRYABLE: ReadonlySet<A2AFailureReason> = new Set(["connect", "unreachable"]);

/** What an {@link A2AToolError} carries besides its reason and message. */
export interface A2AToolErrorOptions {
  /** The remote agent's URL, as configured. */
  agent: string;
  /** The remote task's id, once known. */
  remoteTaskId?: string;
  cause?: unknown;
}

/** A failure delegating to a remote A2A agent (code `ToolError`). */
export class A2AToolError extends SemaError {
  /** Why it failed. */
  readonly reason: A2AFailureReason;
  /** The remote agent's URL, as configured. */
  readonly agent: string;
  /** The remote task's id, when the remote agent had given one. */
  readonly remoteTaskId: string | undefined;

  constructor(reason: A2AFailureReason, message: string, options: A2AToolErrorOptions) {
    const details: Record<string, unknown> = { reason, agent: options.agent };
    if (options.remoteTaskId !== undefined) details.remoteTaskId = options.remoteTaskId;
    super("ToolError", message, { isRetryable: RETRYABLE.has(reason), details, cause: options.cause });
    this.name = "A2AToolError";
    this.reason = reason;
    this.agent = options.agent;
    this.remoteTaskId = options.remoteTaskId;
  }
}
