/** `POST /v1/tasks/{taskId}/approvals/{callId}`: decide a call waiting for approval, bound to its digest. */
import { type AnyRouteSpec, route } from "../route.ts";
import { DecideApprovalRequest, DecideApprovalResponse } from "../schemas/actions.ts";
import { ApprovalParams } from "../schemas/common.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
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
        return context.json(await decideTaskApproval(deps, caller, params.taskId, params.callId, body));
      },
    }),
  ];
}
