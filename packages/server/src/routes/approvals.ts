/**
 * `POST /v1/tasks/{taskId}/approvals/{callId}`: decide a call waiting for approval, bound to its
 * digest; `GET /v1/approvals`: the calls the caller may decide, across its principal's tasks.
 */
import { type AnyRouteSpec, route } from "../route.ts";
import { DecideApprovalRequest, DecideApprovalResponse } from "../schemas/actions.ts";
import { ApprovalInbox, ApprovalsQuery } from "../schemas/approvals-inbox.ts";
import { ApprovalParams } from "../schemas/common.ts";
import { approvalInbox } from "../tasks/approval-inbox.ts";
import { decideTaskApproval } from "../tasks/decide-task-approval.ts";
import type { RouteDeps } from "./deps.ts";

export function approvalRoutes(deps: RouteDeps): AnyRouteSpec[] {
  return [
    route({
      method: "get",
      path: "/v1/approvals",
      operationId: "listApprovals",
      summary: "The calls waiting for a decision in the caller's tasks that the caller may decide",
      tag: "approvals",
      query: ApprovalsQuery,
      responses: {
        200: {
          description:
            "Newest task first, each task's calls together. Only calls this caller may decide under the server's approver rules (`approvers`); a token without the approver role sees none where the rule asks for it. A page looks at 1,000 tasks at most, so it may be short (even empty) and still have a `nextCursor`.",
          schema: ApprovalInbox,
        },
      },
      errors: [400, 401, 429],
      async handler({ query, caller, context }) {
        return context.json(await approvalInbox(deps, caller, query));
      },
    }),
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
