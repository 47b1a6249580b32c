/**
 * `POST /v1/tasks/{taskId}/inputs`: human text into a task. The lane is an authority, so it is
 * checked against the token here: `supervisor` needs the supervisor role, `external` names its
 * sender and is fenced as untrusted, and the default is the caller's own `user` lane.
 */
import { type AnyRouteSpec, route } from "../route.ts";
import { SendInputRequest, SendInputResponse } from "../schemas/actions.ts";
import { TaskParams } from "../schemas/common.ts";
import { sendInputAs } from "../tasks/task-actions.ts";
import type { RouteDeps } from "./deps.ts";

export function inputRoutes(deps: RouteDeps): AnyRouteSpec[] {
  return [
    route({
      method: "post",
      path: "/v1/tasks/:taskId/inputs",
      operationId: "sendInput",
      summary: "Steer a task, queue a follow-up, or wake it",
      tag: "inputs",
      params: TaskParams,
      body: SendInputRequest,
      responses: { 202: { description: "Recorded; `delivery` says how.", schema: SendInputResponse } },
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      contentBody: true,
      async handler({ params, body, caller, context }) {
        const sent = await sendInputAs(deps, caller, params.taskId, { ...body, path: "body.text" });
        return context.json(sent, 202);
      },
    }),
  ];
}
