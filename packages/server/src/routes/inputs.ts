/**
 * `POST /v1/tasks/{taskId}/inputs`: human text into a task, on the lane the token allows (see
 * `sendTaskInput`).
 */
import { type AnyRouteSpec, route } from "../route.ts";
import { SendInputRequest, SendInputResponse } from "../schemas/actions.ts";
import { TaskParams } from "../schemas/common.ts";
import { sendTaskInput } from "../tasks/send-task-input.ts";
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
        return context.json(await sendTaskInput(deps, caller, params.taskId, body), 202);
      },
    }),
  ];
}
