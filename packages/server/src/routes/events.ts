/** `GET /v1/tasks/{taskId}/events`: the log as Server-Sent Events, or a page of it as JSON. */
import { isTerminal } from "@sema-agent/core";
import { sseResponse } from "../events/sse-response.ts";
import { badRequest } from "../http-error.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { TaskParams } from "../schemas/common.ts";
import { EventPage, EventsQuery } from "../schemas/events.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { RouteDeps } from "./deps.ts";
import { taskStreamOptions } from "./stream-options.ts";

/** `Last-Event-ID` wins over `?after=`: it is where a reconnecting client really is. */
function resumeSeq(header: string | undefined, after: number | undefined): number {
  if (header === undefined || header.trim() === "") return after ?? 0;
  const value = header.trim();
  if (!/^\d{1,15}$/.test(value))
    throw badRequest("Last-Event-ID must be the seq of a stored event", "headers.last-event-id");
  return Number(value);
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
};

export function eventRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  return [
    route({
      method: "get",
      path: "/v1/tasks/:taskId/events",
      operationId: "taskEvents",
      summary: "The task's events: SSE (stored, then live with deltas), or `format=json` for a page",
      tag: "events",
      params: TaskParams,
      query: EventsQuery,
      responses: {
        204: { description: "The task is finished and nothing follows `Last-Event-ID` / `after`: do not reconnect." },
        200: {
          description:
            "`text/event-stream`: `id:` = seq and `event:` = type for stored events; ephemeral deltas have no id. A stream cut for a client that fell behind its byte budget ends with `event: stream_overflow` (`{reason, limitBytes, lastSeq}`: resume with `Last-Event-ID`), one whose token was revoked with `event: token_revoked`. With `format=json`, a page.",
          schema: EventPage,
          eventStream: true,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, query, caller, context }) {
        const afterSeq = resumeSeq(context.req.header("last-event-id"), query.after);
        const record = await ownTask(store, params.taskId, caller);
        if (query.format === "json") {
          const limit = query.limit ?? 100;
          const read = await store.read(params.taskId, { afterSeq, limit: limit + 1 });
          const events = read.slice(0, limit);
          const last = events.at(-1);
          return context.json(read.length > limit && last !== undefined ? { events, nextAfter: last.seq } : { events });
        }
        // Nothing will ever follow: 204 tells an EventSource to stop reconnecting (the stream
        // of a finished task ends after its last event, and a client would otherwise come back).
        const { summary } = record;
        if (isTerminal(summary.status) && summary.legId === undefined && afterSeq >= record.lastSeq)
          return context.body(null, 204);
        return sseResponse(context.env, taskStreamOptions(deps, caller, record, afterSeq), SSE_HEADERS);
      },
    }),
  ];
}
