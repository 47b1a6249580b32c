/** `GET /v1/tasks/{taskId}/trace`: the task's trace, rebuilt from its log, as OTLP/JSON. */
import type * as Otel from "@sema-agent/otel";
import { type AnyRouteSpec, route } from "../route.ts";
import { TaskParams } from "../schemas/common.ts";
import { TraceRequest } from "../schemas/trace.ts";
import { ownTask } from "../tasks/own-task.ts";
import type { RouteDeps } from "./deps.ts";

type TraceTaskJson = typeof Otel.traceTaskJson;

// Loaded on the first request for a trace: a server nobody asks for one never loads the
// OpenTelemetry packages (packages/cli/src/module-graph.test.ts holds `sema serve` to that).
let traceTaskJson: Promise<TraceTaskJson> | undefined;
function loadTraceTaskJson(): Promise<TraceTaskJson> {
  traceTaskJson ??= import("@sema-agent/otel").then((otel) => otel.traceTaskJson);
  return traceTaskJson;
}

export function traceRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  return [
    route({
      method: "get",
      path: "/v1/tasks/:taskId/trace",
      operationId: "taskTrace",
      summary: "The task's trace, rebuilt from its log, as OTLP/JSON (load it into any OTLP tool)",
      tag: "events",
      params: TaskParams,
      responses: {
        200: {
          description:
            "An OTLP/JSON `ExportTraceServiceRequest` of the task's spans (`@sema-agent/otel`'s mapping, see the Observability guide), with the stored times and token usage. Spans of a task still running or parked end at its last event and carry `sema.span.open`. The task's texts (objective, prompts, answers, tool inputs and outputs) are in it only when the server's operator set `traceContent`.",
          schema: TraceRequest,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        await ownTask(store, params.taskId, caller);
        // Content only when the operator said so (traceContent), whatever the server's environment
        // says (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): never a request's choice.
        const body = await (await loadTraceTaskJson())(store, params.taskId, { captureContent: deps.traceContent });
        return context.body(body, 200, { "content-type": "application/json; charset=utf-8" });
      },
    }),
  ];
}
