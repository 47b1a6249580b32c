/**
 * Deciding an approval for a caller, as every route that takes a decision does (`/v1`'s approval
 * route, the front-end protocols): the reason sanitized, the digest, the approver's role and the
 * principal checked by core, and this process's workers told.
 */
import { decideApproval } from "@sema-agent/core";
import type { ApprovalDecidedEvent } from "@sema-agent/core/protocol";
import type { Caller } from "../ingress/caller.ts";
import { sanitizeText } from "../ingress/sanitize.ts";
import type { RouteDeps } from "../routes/deps.ts";

const REASON_MAX_CHARS = 2000;

/** A decision as a route received it. */
export interface DecisionRequest {
  callId: string;
  digest: string;
  decision: "approve" | "deny";
  reason?: string | undefined;
  scope?: "call" | "tool-for-task" | undefined;
  /** Where the reason is in the request, for its errors (`body.reason`). */
  reasonPath: string;
}

/** Record `request` on the caller's task `taskId` (ownership is the caller's check, done first). */
export async function decideFor(
  deps: RouteDeps,
  caller: Caller,
  taskId: string,
  request: DecisionRequest,
): Promise<ApprovalDecidedEvent> {
  const reason =
    request.reason === undefined
      ? undefined
      : sanitizeText(request.reason, "user", REASON_MAX_CHARS, request.reasonPath);
  const decided = await decideApproval(deps.store, taskId, {
    callId: request.callId,
    digest: request.digest,
    decision: request.decision,
    actor: caller.actor,
    principal: caller.principal,
    ...(reason === undefined ? {} : { reason }),
    ...(request.scope === undefined ? {} : { scope: request.scope }),
    canApprove: deps.canApprove(caller),
  });
  deps.workers?.notify(taskId);
  return decided;
}
