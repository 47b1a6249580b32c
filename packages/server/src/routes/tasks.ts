/** `POST /v1/tasks`, `GET /v1/tasks`, `GET /v1/tasks/{taskId}`. */
import type { Store } from "@sema-agent/core";
import type { BlobAttachment } from "@sema-agent/core/protocol";
import { HttpError } from "../http-error.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { BlobParams, TaskParams } from "../schemas/common.ts";
import { CreateTaskRequest, CreateTaskResponse, ListTasksQuery, TaskDetail, TaskPage } from "../schemas/tasks.ts";
import { createTaskFor } from "../tasks/create-task.ts";
import { ownTask } from "../tasks/own-task.ts";
import { listQueryOf, listTasksOf, readTaskDetail } from "../tasks/read-task.ts";
import type { RouteDeps } from "./deps.ts";

export function taskRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  return [
    route({
      method: "post",
      path: "/v1/tasks",
      operationId: "createTask",
      summary: "Create a task; a worker starts it",
      tag: "tasks",
      body: CreateTaskRequest,
      responses: { 201: { description: "Created.", schema: CreateTaskResponse } },
      errors: [400, 401, 413, 415, 429],
      contentBody: true,
      async handler({ body, caller, context }) {
        const taskId = await createTaskFor(
          deps,
          caller,
          {
            objective: body.objective,
            agent: body.agent,
            where: {
              objective: "body.objective",
              agent: "body.agent",
              providerOptions: "body.settings.providerOptions",
            },
          },
          { ...(body.metadata === undefined ? {} : { metadata: body.metadata }), ...body.settings },
        );
        context.header("Location", `/v1/tasks/${taskId}`);
        return context.json({ taskId, status: "created" as const }, 201);
      },
    }),
    route({
      method: "get",
      path: "/v1/tasks",
      operationId: "listTasks",
      summary: "The caller's tasks, newest first",
      tag: "tasks",
      query: ListTasksQuery,
      responses: { 200: { description: "A page of tasks.", schema: TaskPage } },
      errors: [400, 401, 429],
      async handler({ query, caller, context }) {
        return context.json(await listTasksOf(store, caller, listQueryOf(query), deps.quotas?.prices));
      },
    }),
    route({
      method: "get",
      path: "/v1/tasks/:taskId/blobs/:digest",
      operationId: "getBlob",
      summary: "The bytes of an image or file one of the task's inputs carried",
      tag: "tasks",
      params: BlobParams,
      responses: {
        200: {
          description: "The bytes, with the media type the input gave them. Never rendered by the API's origin.",
          contentType: "application/octet-stream",
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        await ownTask(store, params.taskId, caller);
        // Only a blob this task's log references: knowing a digest is not leave to read the bytes.
        const attachment = await referencedBlob(store, params.taskId, params.digest);
        const bytes = attachment === undefined ? undefined : await store.getBlob?.(params.digest);
        if (attachment === undefined || bytes === undefined)
          throw new HttpError(404, "BlobNotFound", `task ${params.taskId} has no attachment ${params.digest}`);
        return context.body(new Uint8Array(bytes), 200, {
          "content-type": attachment.mediaType,
          "content-length": String(bytes.length),
          // Bytes from a caller: never sniffed, never run, never framed, whatever they claim to be.
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "content-disposition": "attachment",
          "cache-control": "private, max-age=31536000, immutable",
        });
      },
    }),
    route({
      method: "get",
      path: "/v1/tasks/:taskId",
      operationId: "getTask",
      summary: "A task: status, usage, result or error, pending approvals, children",
      tag: "tasks",
      params: TaskParams,
      responses: { 200: { description: "The task.", schema: TaskDetail } },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        // The record's summary and the few events it points at: the cost does not grow with the log.
        return context.json(await readTaskDetail(store, caller, params.taskId, deps.quotas?.prices));
      },
    }),
  ];
}

/** The attachment of the task's inputs with this digest, if its log has one. */
async function referencedBlob(store: Store, taskId: string, digest: string): Promise<BlobAttachment | undefined> {
  for (const event of await store.read(taskId)) {
    if (event.type !== "human_input" || event.attachments === undefined) continue;
    for (const attachment of event.attachments)
      if ("digest" in attachment && attachment.digest === digest) return attachment;
  }
  return undefined;
}
