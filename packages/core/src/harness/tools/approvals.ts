/**
 * Approvals bound to the exact action (design §6): a call that needs one is recorded with its input
 * as canonical JSON and that text's SHA-256; the task parks, nothing waits in memory; a decision
 * names the call and the digest, is attributed to its actor, and is refused unless the digest
 * matches, the call is undecided, and the actor may approve. A human input never counts.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import type { ApprovalState } from "../../core/fold.ts";
import { isTerminal } from "../../core/task-summary.ts";
import type { Store } from "../../ports/store.ts";
import {
  ApprovalConflictError,
  ApprovalNotFoundError,
  DigestMismatchError,
  ForbiddenError,
  TaskFinishedError,
} from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { CallProvenance } from "../../protocol/provenance.ts";
import type { ApprovalDecidedEvent, ApprovalRequestedEvent } from "../../protocol/task-event.ts";
import type { TraceContext } from "../../protocol/trace-context.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import { appendToState } from "../tasks/append-to-task.ts";

/** The SHA-256 of `text`'s UTF-8 bytes, as lowercase hex: Web Crypto, so any runtime computes it. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * The `approval_requested` event for a call and its (validated) input; version 2, with
 * `provenance`, when the provenance policy held it (3 when its egress rule did).
 */
export async function approvalRequest(
  legId: string,
  callId: string,
  name: string,
  input: JsonValue,
  provenance?: CallProvenance,
): Promise<ApprovalRequestedEvent> {
  const inputJson = canonicalJson(input);
  const digest = await sha256Hex(inputJson);
  if (provenance === undefined) return { type: "approval_requested", v: 1, legId, callId, name, inputJson, digest };
  const v = provenance.egress === undefined ? 2 : 3;
  return { type: "approval_requested", v, legId, callId, name, inputJson, digest, provenance };
}

/**
 * A person's decision on a requested approval: the call, the digest they were shown, approve or
 * deny (for this call or for the tool for the rest of the task), and who decided as which principal.
 */
export interface Decision {
  callId: string;
  /** The digest of the input being approved, as shown to the person deciding. */
  digest: string;
  decision: "approve" | "deny";
  reason?: string;
  /** `tool-for-task`: also allow later calls of this tool in this task ("always allow"). */
  scope?: "call" | "tool-for-task";
  /** Who decides (minted by the ingress). */
  actor: ActorAssertion;
  /** The principal the decider is authenticated as. */
  principal: string;
  /** The W3C trace context of the request that decided (`parseTraceContext`), recorded with the decision. */
  traceContext?: TraceContext;
}

/**
 * Who may decide a call: by default only the task's own principal, through a verified actor.
 * `taskAgent` is the agent the task was created with, for hosts whose rule differs per agent.
 */
export type CanApprove = (
  actor: ActorAssertion,
  principal: string,
  call: ApprovalState & { taskPrincipal: string; taskAgent?: string },
) => boolean | Promise<boolean>;

/** The default approval rule: only a verified actor authenticated as the task's own principal may decide. */
export const defaultCanApprove: CanApprove = (actor, principal, call) =>
  actor.verified === true && principal === call.taskPrincipal;

/** A decision, and the host's rule for who may make it. */
export interface DecideApprovalOptions extends Decision {
  /** Who may decide; default {@link defaultCanApprove}. */
  canApprove?: CanApprove;
}

/**
 * Record a decision. Throws `ApprovalNotFound` (no such request), `TaskFinished` (the task was
 * cancelled or has ended: its calls will never run), `ApprovalConflict` (already decided or
 * already run), `DigestMismatch`, or `Forbidden`; nothing is recorded then.
 */
export async function decideApproval(
  store: Store,
  taskId: string,
  decision: DecideApprovalOptions,
): Promise<ApprovalDecidedEvent> {
  const canApprove = decision.canApprove ?? defaultCanApprove;
  const event: ApprovalDecidedEvent = {
    type: "approval_decided",
    v: 1,
    callId: decision.callId,
    digest: decision.digest,
    decision: decision.decision,
    actor: decision.actor,
  };
  if (decision.scope !== undefined) event.scope = decision.scope;
  if (decision.reason !== undefined) event.reason = decision.reason;
  if (decision.traceContext !== undefined) event.traceContext = { ...decision.traceContext };
  // Checked against the log as it is at the append; a competing decision that got in first is seen.
  await appendToState(store, taskId, async (state) => {
    const approval = state.approvals.find((a) => a.callId === decision.callId);
    if (approval === undefined) {
      const ran = state.transcript.some((e) => e.role === "tool" && e.callId === decision.callId);
      if (ran) throw new ApprovalConflictError(taskId, decision.callId, "it has already run");
      throw new ApprovalNotFoundError(taskId, decision.callId);
    }
    const { status } = state.summary;
    if (isTerminal(status)) throw new TaskFinishedError(taskId, status);
    if (approval.decision !== undefined) throw new ApprovalConflictError(taskId, decision.callId, approval.decision);
    if (decision.digest !== approval.digest) throw new DigestMismatchError(taskId, decision.callId);
    const call = {
      ...approval,
      taskPrincipal: state.principal,
      ...(state.agent === undefined ? {} : { taskAgent: state.agent }),
    };
    if (!(await canApprove(decision.actor, decision.principal, call))) {
      throw new ForbiddenError(`${decision.actor.id} may not decide call ${decision.callId} of task ${taskId}`, {
        taskId,
        callId: decision.callId,
      });
    }
    return [event];
  });
  return event;
}
