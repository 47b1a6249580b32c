/** `GET /v1/usage`: the caller's own principal's usage and quotas (never another principal's). */
import { quotaUsage, usageSinceMs } from "@sema-agent/core";
import { ConfigError } from "@sema-agent/core/protocol";
import { quotasOf } from "../quotas/quota-settings.ts";
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
        const { store } = deps;
        if (store.usage === undefined)
          throw new ConfigError("GET /v1/usage", [{ path: "store", message: "counts no usage (Store.usage)" }]);
        const nowMs = deps.now();
        const report = await store.usage({ principal: caller.principal, sinceMs: usageSinceMs(nowMs) });
        const usage = quotaUsage(report.buckets, nowMs, deps.quotas?.prices);
        const hour = Math.floor(nowMs / 3_600_000) * 3_600_000;
        const month = new Date(nowMs);
        return context.json({
          principal: caller.principal,
          at: new Date(nowMs).toISOString(),
          day: { since: new Date(hour - 23 * 3_600_000).toISOString(), ...usage.day },
          month: {
            since: new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1)).toISOString(),
            ...usage.month,
          },
          activeTasks: report.activeTasks,
          quotas: quotasOf(deps.quotas, caller.principal) ?? {},
        });
      },
    }),
  ];
}
