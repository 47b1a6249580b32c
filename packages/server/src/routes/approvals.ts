/** `POST /v1/tasks/{taskId}/approvals/{callId}`: decide a call waiting for approval, bound to its digest. */
import { decideApproval } from "@sema-agent/core";
import type { ApprovalDecidedEvent } from "@sema-agent/core/protocol";
import type { Caller } from "../ingress/caller.ts";
import { sanitizeText } from "../ingress/sanitize.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { DecideApprovalRequest, DecideApprovalResponse } from "../schemas/actions.ts";
import { ApprovalParams } from "../schemas/common.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { RouteDeps } from "./deps.ts";

const REASON_MAX_CHARS = 2000;

/** A decision as a caller gives it: the call, the digest it saw, and optionally why and for how much. */
export interface CallerDecision {
  callId: string;
  digest: string;
  decision: "approve" | "deny";
  reason?: string | undefined;
  scope?: "call" | "tool-for-task" | undefined;
  /** Where the reason was given, for the error that names it (default `body.reason`). */
  reasonPath?: string;
}

/**
 * Decide a call for `caller`, checked as core checks it (digest, the caller's right to approve,
 * the task's principal); the reason is sanitized and capped like any text. The task's workers are
 * told. Shared by every protocol that decides approvals.
 */
export async function decideAsCaller(
  deps: RouteDeps,
  caller: Caller,
  taskId: string,
  given: CallerDecision,
): Promise<ApprovalDecidedEvent> {
  const reason =
    given.reason === undefined
      ? undefined
      : sanitizeText(given.reason, "user", REASON_MAX_CHARS, given.reasonPath ?? "body.reason");
  await ownTask(deps.store, taskId, caller);
  const decided = await decideApproval(deps.store, taskId, {
    callId: given.callId,
    digest: given.digest,
    decision: given.decision,
    actor: caller.actor,
    principal: caller.principal,
    ...(reason === undefined ? {} : { reason }),
    ...(given.scope === undefined ? {} : { scope: given.scope }),
    canApprove: deps.canApprove(caller),
  });
  deps.workers?.notify(taskId);
  return decided;
}

export function approvalRoutes(deps: RouteDeps): AnyRouteSpec[] {
  return [
    route({
      method: "post",
      path: "/v1/tasks/:taskId/approvals/:callId",
      operationId: "decideApproval",
      summary: "Approve or deny a call; the digest must match the recorded input",
      tag: "approvals",
      params: ApprovalParams,
      body: DecideApprovalRequest,
      responses: { 200: { description: "Recorded.", schema: DecideApprovalResponse } },
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      async handler({ params, body, caller, context }) {
        const decided = await decideAsCaller(deps, caller, params.taskId, { callId: params.callId, ...body });
        return context.json({ callId: decided.callId, decision: decided.decision, digest: decided.digest });
      },
    }),
  ];
}
