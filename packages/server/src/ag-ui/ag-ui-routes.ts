/** `POST /v1/agents/{name}/ag-ui`: an AG-UI run (`RunAgentInput` in, AG-UI events out over SSE). */
import { type AnyRouteSpec, route } from "../route.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { AgentParams, AgUiRunInput } from "./run-input.ts";
import { startRun } from "./start-run.ts";

/** The AG-UI route, for the app and the OpenAPI document. */
export function agUiRoutes(deps: RouteDeps): AnyRouteSpec[] {
  return [
    route({
      method: "post",
      path: "/v1/agents/:name/ag-ui",
      operationId: "agUiRun",
      summary: "Run the agent on an AG-UI thread (the thread is a task; a message during a run steers it)",
      tag: "front-ends",
      params: AgentParams,
      body: AgUiRunInput,
      responses: {
        200: {
          description:
            "`text/event-stream` of AG-UI events: `RUN_STARTED`, the run's messages, tool calls and steps, `CUSTOM` events named `sema.*` for Sema's facts, then `RUN_FINISHED` (its outcome an `interrupt` per call waiting for approval, `success` with `pendingToolCallIds` for frontend tool calls, or `cancelled`) or `RUN_ERROR`.",
          contentType: "text/event-stream",
        },
      },
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      async handler({ params, body, caller, context }) {
        return startRun(deps, caller, params.name, body, context.req.raw.signal);
      },
    }),
  ];
}
