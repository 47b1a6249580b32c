/** `GET /v1/usage`: the caller's own principal's usage and quotas (never another principal's). */
import { principalUsage } from "@sema-agent/core/quotas";
import { type AnyRouteSpec, route } from "../route.ts";
import { UsageResponse } from "../schemas/usage.ts";
import type { RouteDeps } from "./deps.ts";

export function usageRoutes(deps: RouteDeps): AnyRouteSpec[] {
  return [
    route({
      method: "get",
      path: "/v1/usage",
      operationId: "getUsage",
      summary: "The caller's principal's usage (tokens and dollars per day and month, active tasks) and quotas",
      tag: "usage",
      responses: { 200: { description: "The usage, read from the store's counters.", schema: UsageResponse } },
      errors: [401, 429],
      async handler({ caller, context }) {
        const quotas = await deps.quotasFor?.(caller.principal);
        return context.json(await principalUsage(deps.store, caller.principal, deps.quotas, deps.now(), quotas));
      },
    }),
  ];
}
