/** `POST /v1/tasks/{taskId}/approvals/{callId}`: decide a call waiting for approval, bound to its digest. */
import { decideApproval } from "@sema-agent/core";
import { sanitizeText } from "../ingress/sanitize.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { DecideApprovalRequest, DecideApprovalResponse } from "../schemas/actions.ts";
import { ApprovalParams } from "../schemas/common.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { RouteDeps } from "./deps.ts";

const REASON_MAX_CHARS = 2000;

export function approvalRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
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
        const reason =
          body.reason === undefined ? undefined : sanitizeText(body.reason, "user", REASON_MAX_CHARS, "body.reason");
        await ownTask(store, params.taskId, caller);
        const decided = await decideApproval(store, params.taskId, {
          callId: params.callId,
          digest: body.digest,
          decision: body.decision,
          actor: caller.actor,
          principal: caller.principal,
          ...(reason === undefined ? {} : { reason }),
          ...(body.scope === undefined ? {} : { scope: body.scope }),
          canApprove: deps.canApprove(caller),
        });
        deps.workers?.notify(params.taskId);
        return context.json({ callId: decided.callId, decision: decided.decision, digest: decided.digest });
      },
    }),
  ];
}
