/** `POST /v1/tasks`, `GET /v1/tasks`, `GET /v1/tasks/{taskId}`. */
import { loadTaskOverview, startTask } from "@sema-agent/core";
import { badRequest } from "../http-error.ts";
import { checkTextOrParts } from "../ingress/sanitize.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { TaskParams } from "../schemas/common.ts";
import { CreateTaskRequest, CreateTaskResponse, ListTasksQuery, TaskDetail, TaskPage } from "../schemas/tasks.ts";
import { ownTask } from "../tasks/own-task.ts";
import { taskDetail, taskListItem } from "../tasks/task-view.ts";
import type { RouteDeps } from "./deps.ts";

export function taskRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store, agents, limits } = deps;
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
        const objective = checkTextOrParts(body.objective, "user", limits.maxTextChars, "body.objective");
        const name = body.agent ?? agents.defaultName;
        const agent = agents.get(name);
        if (agent === undefined)
          throw badRequest(`body.agent: no agent named ${name}`, "body.agent", { agents: agents.names() });
        const taskId = await startTask(store, {
          objective,
          principal: caller.principal,
          actor: caller.actor,
          agent: name,
          model: agent.model.id,
          content: { maxPartBytes: limits.maxPartBytes, maxInputBytes: limits.maxContentBytes },
          ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
        });
        deps.workers?.notify(taskId);
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
        const page = await store.listTasks({
          principal: caller.principal,
          ...(query.status === undefined ? {} : { status: query.status }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
          limit: query.limit ?? 50,
        });
        const tasks = await Promise.all(page.tasks.map((record) => taskListItem(store, record)));
        return context.json(page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor });
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
        const record = await ownTask(store, params.taskId, caller);
        // The record's summary and the few events it points at: the cost does not grow with the log.
        return context.json(taskDetail(record, await loadTaskOverview(store, record)));
      },
    }),
  ];
}
