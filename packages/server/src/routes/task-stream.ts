/** `GET /v1/tasks/stream`: the caller's tasks as they change, as Server-Sent Events. */
import { sourceResponse } from "../events/sse-response.ts";
import { TaskListSubscriber } from "../events/task-list-stream.ts";
import { HttpError } from "../http-error.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { TaskStreamQuery } from "../schemas/tasks.ts";
import type { RouteDeps } from "./deps.ts";
import { releasing, StreamSlots } from "./stream-slots.ts";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
};

/** Registered before `GET /v1/tasks/{taskId}`, which would otherwise take `stream` for an id. */
export function taskStreamRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const slots = new StreamSlots(deps.limits.maxTaskListStreams);
  return [
    route({
      method: "get",
      path: "/v1/tasks/stream",
      operationId: "streamTasks",
      summary: "The caller's tasks as they change (created, status, approvals, usage), from now on",
      tag: "tasks",
      query: TaskStreamQuery,
      responses: {
        200: {
          description:
            "`text/event-stream`: `event: task` with a `TaskListItem` each time one of the caller's tasks that passes the filters changes, from the moment the stream opens (list with `GET /v1/tasks` first). No `id:`: a client that reconnects lists again, and so does one sent `event: resync` (changes the store could not name: another process's commit to a SQLite file, a PostgreSQL notification gap). Heartbeat comments; `event: stream_overflow` when the client fell behind its byte budget, `event: token_revoked` when its token was revoked, then the stream ends. A principal holds at most `limits.maxTaskListStreams` of these open at once (429 `RateLimited` past it).",
          eventStream: true,
        },
      },
      errors: [400, 401, 429, 503],
      async handler({ query, caller, context }) {
        const feed = deps.streams.list;
        if (!feed.supported)
          throw new HttpError(
            503,
            "Unavailable",
            "this server's store does not tell of task changes (Store.onTaskChange)",
          );
        // A slot of the principal's (429 past the limit), given back when the stream ends either way.
        const release = slots.take(caller.principal);
        const source = new TaskListSubscriber({
          feed,
          principal: caller.principal,
          filter: {
            ...(query.status === undefined ? {} : { status: query.status }),
            ...(query.agent === undefined ? {} : { agent: query.agent }),
            roots: query.roots === "true",
          },
          budget: deps.streams.budget,
          heartbeatMs: deps.limits.heartbeatMs,
          maxBufferedBytes: deps.limits.sseMaxBufferedBytes,
          recheckMs: deps.limits.sseRecheckMs,
          ...(caller.stillValid === undefined ? {} : { authorized: caller.stillValid }),
          ...(caller.onRevoked === undefined ? {} : { onRevoked: caller.onRevoked }),
        });
        return sourceResponse(context.env, releasing(source, release), SSE_HEADERS);
      },
    }),
  ];
}
