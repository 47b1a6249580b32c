/**
 * `POST /v1/tasks/{taskId}/interrupt`, `/cancel`, `/resume`. Interrupt and cancel are records in
 * the log that the running leg (in any process) sees through the store's watch; resume records a
 * process's worker pool to run the next leg of a parked task.
 */
import { interrupt, isTerminal, requestResume } from "@sema-agent/core";
import { TaskFinishedError } from "@sema-agent/core/protocol";
import { isLeaseLive } from "@sema-agent/core/store-kit";
import { HttpError as ApiError } from "../http-error.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { CancelRequest, CancelResponse, EmptyRequest, InterruptResponse, ResumeResponse } from "../schemas/actions.ts";
import { TaskParams } from "../schemas/common.ts";
import { cancelTaskFor } from "../tasks/cancel-task.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { RouteDeps } from "./deps.ts";

export function controlRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  return [
    route({
      method: "post",
      path: "/v1/tasks/:taskId/interrupt",
      operationId: "interruptTask",
      summary: "Stop the running leg at once; the task parks (interrupt)",
      tag: "control",
      params: TaskParams,
      body: EmptyRequest,
      bodyOptional: true,
      responses: { 202: { description: "Requested (or nothing was running).", schema: InterruptResponse } },
      errors: [400, 401, 404, 409, 413, 415, 429],
      async handler({ params, caller, context }) {
        const record = await ownTask(store, params.taskId, caller);
        if (isTerminal(record.summary.status)) throw new TaskFinishedError(params.taskId, record.summary.status);
        const interrupted = await interrupt(store, params.taskId, { actor: caller.actor });
        return context.json({ taskId: params.taskId, interrupted }, 202);
      },
    }),
    route({
      method: "post",
      path: "/v1/tasks/:taskId/cancel",
      operationId: "cancelTask",
      summary: "End the task for good, and its children",
      tag: "control",
      params: TaskParams,
      body: CancelRequest,
      bodyOptional: true,
      responses: {
        200: {
          description: "Cancelled. A task that has ended (completed, failed or cancelled) is a 409.",
          schema: CancelResponse,
        },
      },
      errors: [400, 401, 404, 409, 413, 415, 429],
      async handler({ params, body, caller, context }) {
        // Core refuses a task that has ended (completed, failed or cancelled): a 409.
        await cancelTaskFor(store, caller, params.taskId, body.reason);
        return context.json({ taskId: params.taskId, cancelled: true as const });
      },
    }),
    route({
      method: "post",
      path: "/v1/tasks/:taskId/resume",
      operationId: "resumeTask",
      summary: "Run the next leg of a parked task",
      tag: "control",
      params: TaskParams,
      body: EmptyRequest,
      bodyOptional: true,
      responses: {
        202: {
          description: "Recorded in the log: a worker (in any process) runs the next leg.",
          schema: ResumeResponse,
        },
      },
      errors: [400, 401, 404, 409, 413, 415, 429],
      async handler({ params, caller, context }) {
        const record = await ownTask(store, params.taskId, caller);
        const { status, openApprovals } = record.summary;
        if (isTerminal(status)) throw new TaskFinishedError(params.taskId, status);
        const leased = isLeaseLive(record.lease, deps.now());
        if (status === "running" && leased)
          throw new ApiError(409, "LeaseHeld", `task ${params.taskId} is running`, {
            details: { taskId: params.taskId },
          });
        if (openApprovals.length > 0)
          throw new ApiError(409, "ApprovalConflict", `task ${params.taskId} waits for approval decisions`, {
            details: { taskId: params.taskId, openApprovals: [...openApprovals] },
          });
        // Durable: the request is in the log, so a worker in any process picks the task up; this
        // process's pool, if it has one, is told at once.
        await requestResume(store, params.taskId, { actor: caller.actor });
        deps.workers?.resume(params.taskId);
        return context.json({ taskId: params.taskId, status }, 202);
      },
    }),
  ];
}
