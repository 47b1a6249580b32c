/**
 * Time travel over HTTP (docs/guide/time-travel.md): `POST /v1/tasks/{taskId}/fork`, `GET
 * /v1/tasks/{taskId}/forks`, `POST /v1/tasks/{taskId}/replay`, `GET /v1/tasks/{taskId}/diff/
 * {otherTaskId}`, `GET /v1/tasks/{taskId}/export`, `POST /v1/tasks/import`. Every one is
 * core's `@sema-agent/core/time-travel` with the caller's principal: another principal's task is
 * not found, exactly like an unknown id, and whatever is made is the caller's.
 */
import { diffTasks, exportTask, replayTask } from "@sema-agent/core/time-travel";
import { type AnyRouteSpec, route } from "../route.ts";
import { EmptyRequest } from "../schemas/actions.ts";
import { TaskParams } from "../schemas/common.ts";
import { ListTasksQuery, TaskPage } from "../schemas/tasks.ts";
import {
  DiffParams,
  ExportQuery,
  ForkRequest,
  ForkResponse,
  ImportResponse,
  ReplayReportBody,
  TaskDiffBody,
} from "../schemas/time-travel.ts";
import { forkTaskFor } from "../tasks/fork-task.ts";
import { importTaskFor } from "../tasks/import-task.ts";
import { ownTask } from "../tasks/own-task.ts";
import { listQueryOf, listTasksOf } from "../tasks/read-task.ts";
import { ReplaySlots } from "../tasks/replay-slots.ts";
import { agentOfTask, unknownAgent } from "../tasks/served-agent.ts";
import type { RouteDeps } from "./deps.ts";

/**
 * The export file's media type: JSON Lines. `application/jsonl` is what the format's own site
 * names (the files are `.jsonl`); an import also takes `application/x-ndjson`, the same bytes
 * under NDJSON's name.
 */
export const EXPORT_MEDIA_TYPE = "application/jsonl";
const IMPORT_MEDIA_TYPES = [EXPORT_MEDIA_TYPE, "application/x-ndjson"] as const;

export function timeTravelRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  const replays = new ReplaySlots(deps.limits.maxConcurrentReplays);
  return [
    route({
      method: "post",
      path: "/v1/tasks/:taskId/fork",
      operationId: "forkTask",
      summary: "Fork a task at a step, optionally changing an input, a tool result or its settings",
      tag: "time-travel",
      params: TaskParams,
      body: ForkRequest,
      bodyOptional: true,
      responses: {
        201: {
          description:
            "The fork: a new task of the caller's principal, a copy of the source's log to a step boundary and a `task_forked`. It is parked (`parked:forked`, or `parked:approval`) and runs on when it gets an input or a resume; with an input edit it has work at once.",
          schema: ForkResponse,
        },
      },
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      async handler({ params, body, caller, context }) {
        const fork = await forkTaskFor(deps, caller, params.taskId, body, deps.now());
        context.header("Location", `/v1/tasks/${fork.taskId}`);
        return context.json(fork, 201);
      },
    }),
    route({
      method: "get",
      path: "/v1/tasks/:taskId/forks",
      operationId: "listForks",
      summary: "The caller's forks and imports of a task, newest first",
      tag: "time-travel",
      params: TaskParams,
      query: ListTasksQuery,
      responses: {
        200: {
          description:
            "A page of the caller's tasks whose `forkedFrom.taskId` is this id (forks, and imports of a task exported under it), paginated like `GET /v1/tasks`. A filter on the caller's own tasks: an id with none, whoever's it is, lists none.",
          schema: TaskPage,
        },
      },
      errors: [400, 401, 429],
      async handler({ params, query, caller, context }) {
        return context.json(
          await listTasksOf(store, caller, { ...listQueryOf(query), forkedFrom: params.taskId }, deps.quotas?.prices),
        );
      },
    }),
    route({
      method: "post",
      path: "/v1/tasks/:taskId/replay",
      operationId: "replayTask",
      summary: "Replay a task against its recording and compare every model request",
      tag: "time-travel",
      params: TaskParams,
      body: EmptyRequest,
      bodyOptional: true,
      responses: {
        200: {
          description:
            "The replay's report. The task runs again in memory as the served agent it was created with, its model and tools answered from the recording: nothing is called, nothing is written. One replay per principal at a time, `maxConcurrentReplays` in the process (429 past either). 409 `UnknownAgent` when that agent is no longer served.",
          schema: ReplayReportBody,
        },
      },
      errors: [400, 401, 404, 409, 413, 415, 429],
      async handler({ params, caller, context }) {
        await ownTask(store, params.taskId, caller);
        const agent = await agentOfTask(store, deps.agents, params.taskId);
        if (agent === undefined) {
          const [created] = await store.read(params.taskId, { limit: 1 });
          throw unknownAgent(params.taskId, created?.type === "task_created" ? created.agent : undefined, deps.agents);
        }
        const release = replays.take(caller.principal);
        try {
          return context.json(await replayTask(store, params.taskId, { agent, principal: caller.principal }));
        } finally {
          release();
        }
      },
    }),
    route({
      method: "get",
      path: "/v1/tasks/:taskId/diff/:otherTaskId",
      operationId: "diffTasks",
      summary: "Two of the caller's tasks side by side, from the steps they share to where they part",
      tag: "time-travel",
      params: DiffParams,
      responses: {
        200: {
          description:
            "The two trajectories (`a` is the first id, `b` the other), each with its usage and, at the server's quota prices, its cost. Either task unknown, or another principal's: 404.",
          schema: TaskDiffBody,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        const prices = deps.quotas?.prices;
        const diff = await diffTasks(store, params.taskId, params.otherTaskId, {
          principal: caller.principal,
          ...(prices === undefined ? {} : { prices }),
        });
        return context.json(diff);
      },
    }),
    route({
      method: "get",
      path: "/v1/tasks/:taskId/export",
      operationId: "exportTask",
      summary: "The task (and its children, if asked) as an export file",
      tag: "time-travel",
      params: TaskParams,
      query: ExportQuery,
      responses: {
        200: {
          description:
            "The export file, byte for byte what `exportTask` (and `sema export`) writes: JSON Lines, a header, each task's events, the bytes of every image and file they reference, and an end line with the SHA-256 of the rest.",
          contentType: EXPORT_MEDIA_TYPE,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, query, caller, context }) {
        const file = await exportTask(store, params.taskId, {
          withChildren: query.withChildren === "true",
          principal: caller.principal,
          now: deps.now,
        });
        return context.body(file, 200, {
          "content-type": `${EXPORT_MEDIA_TYPE}; charset=utf-8`,
          "content-disposition": `attachment; filename="${params.taskId}.jsonl"`,
        });
      },
    }),
    route({
      method: "post",
      path: "/v1/tasks/import",
      operationId: "importTask",
      summary: "Import an export file as the caller's tasks (needs the supervisor role)",
      tag: "time-travel",
      textBody: {
        mediaTypes: IMPORT_MEDIA_TYPES,
        limit: "maxImportBodyBytes",
        description:
          "An export file (`GET /v1/tasks/{taskId}/export`, `sema export`), up to `maxImportBodyBytes` (default 32 MiB; 413 above). Checked whole before anything is written: a malformed or edited file is a 400 naming the line.",
      },
      role: "supervisor",
      responses: {
        201: {
          description:
            "Imported: every task of the file under a fresh id, the caller's principal's (never the file's). An import writes what the file says anyone said (inputs on any lane, approvals), so it needs a token with the supervisor role (403 otherwise).",
          schema: ImportResponse,
        },
      },
      errors: [400, 401, 403, 413, 415, 429],
      async handler({ text, caller, context }) {
        const imported = await importTaskFor(deps, caller, text);
        context.header("Location", `/v1/tasks/${imported.taskId}`);
        return context.json(imported, 201);
      },
    }),
  ];
}
