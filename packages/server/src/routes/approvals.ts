/** `POST /v1/tasks/{taskId}/approvals/{callId}`: decide a call waiting for approval, bound to its digest. */
import { type AnyRouteSpec, route } from "../route.ts";
import { DecideApprovalRequest, DecideApprovalResponse } from "../schemas/actions.ts";
import { ApprovalParams } from "../schemas/common.ts";
import { decideAs } from "../tasks/task-actions.ts";
import type { RouteDeps } from "./deps.ts";

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
        const decided = await decideAs(deps, caller, params.taskId, {
          ...body,
          callId: params.callId,
          reasonPath: "body.reason",
        });
        return context.json({ callId: decided.callId, decision: decided.decision, digest: decided.digest });
      },
    }),
  ];
}
