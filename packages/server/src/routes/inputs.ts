/**
 * `POST /v1/tasks/{taskId}/inputs`: human text into a task. The lane is an authority, so it is
 * checked against the token here: `supervisor` needs the supervisor role, `external` names its
 * sender and is fenced as untrusted, and the default is the caller's own `user` lane.
 */
import { type ActorAssertion, type HumanInputSource, sendInput } from "@sema-agent/core";
import { ForbiddenError } from "@sema-agent/core/protocol";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { parseDisplayName } from "../ingress/display-name.ts";
import { checkTextOrParts } from "../ingress/sanitize.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { SendInputRequest, SendInputResponse } from "../schemas/actions.ts";
import { TaskParams } from "../schemas/common.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { RouteDeps } from "./deps.ts";
import { TaskQueue } from "./task-queue.ts";

/** The lane and the actor an input is recorded with, from the token and the request. */
function laneOf(
  caller: Caller,
  lane: "user" | "supervisor" | "external",
  from: string | undefined,
): { source: HumanInputSource; actor: ActorAssertion } {
  if (lane !== "external" && from !== undefined)
    throw badRequest("body.from is only for the external lane (use X-Sema-Speaker to relay a person)", "body.from");
  if (lane === "supervisor" && !caller.roles.has("supervisor"))
    throw new ForbiddenError("the supervisor lane needs a token with the supervisor role", { lane });
  if (lane !== "external") return { source: lane, actor: caller.actor };
  if (from === undefined) throw badRequest("body.from is required on the external lane", "body.from");
  // The relayed sender is a claim of the relaying caller, never a verified identity.
  return {
    source: "external",
    actor: { id: parseDisplayName(from, "body.from"), verified: false, issuer: caller.actor.id },
  };
}

export function inputRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store, limits } = deps;
  const queue = new TaskQueue();
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
        const { source, actor } = laneOf(caller, body.lane ?? "user", body.from);
        const text = checkTextOrParts(body.text, source, limits.maxTextChars, "body.text");
        await ownTask(store, params.taskId, caller);
        const sent = await queue.run(params.taskId, () =>
          sendInput(store, params.taskId, {
            text,
            source,
            actor,
            content: { maxPartBytes: limits.maxPartBytes, maxInputBytes: limits.maxContentBytes },
            ...(body.carrier === undefined ? {} : { carrier: body.carrier }),
            ...(body.policy === undefined ? {} : { policy: body.policy }),
            ...(body.legId === undefined ? {} : { legId: body.legId }),
            ...(body.inputId === undefined ? {} : { inputId: body.inputId }),
          }),
        );
        if (sent.delivery === "parked") deps.workers?.notify(params.taskId);
        return context.json(sent, 202);
      },
    }),
  ];
}
