/**
 * `GET /metrics`: this process's metrics in the Prometheus text format, served only when the host
 * gives a way to render them (`sema serve --metrics`; otherwise the route does not exist and
 * answers 404). The numbers count every principal's tasks, so the route needs a bearer token with
 * the `metrics` role — an operator's credential, not a tenant's. The server itself loads nothing
 * of OpenTelemetry: the host renders the text.
 */
import { ForbiddenError } from "@sema-agent/core/protocol";
import type { Hono } from "hono";
import type { AppEnv } from "./app-env.ts";
import type { Ingress } from "./ingress/caller.ts";
import type { RateLimiter } from "./ingress/rate-limit.ts";
import { SPEAKER_HEADER } from "./ingress/speaker.ts";

/** The Prometheus text format's content type (version 0.0.4, which scrapers accept by default). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Mounts `GET /metrics` on `app`, authenticated like the API and rate limited per principal. */
export function mountMetrics(
  app: Hono<AppEnv>,
  options: { ingress: Ingress; rateLimiter: RateLimiter; render: () => Promise<string> },
): void {
  app.get("/metrics", async (c) => {
    const caller = await options.ingress.authenticate({
      authorization: c.req.header("authorization"),
      speaker: c.req.header(SPEAKER_HEADER),
    });
    options.rateLimiter.take(caller.principal);
    if (!caller.roles.has("metrics")) throw new ForbiddenError("GET /metrics needs a token with the metrics role", {});
    return c.body(await options.render(), 200, { "content-type": PROMETHEUS_CONTENT_TYPE });
  });
}
