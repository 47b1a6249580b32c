/**
 * `createApp`: the HTTP API as a Hono app, over a store, the agents and an ingress. Nothing of a
 * task lives in the app; any number of apps (and workers) may serve one store.
 */

import type { CanApprove, Store } from "@sema-agent/core";
import {
  ConfigError,
  checkConfig,
  functionSchema,
  holderSchema,
  type SchemaMatches,
  type ShapeOf,
} from "@sema-agent/core/protocol";
import { type QuotaSettings, type QuotaTokenSource, quotaResolver, quotaSettingsSchema } from "@sema-agent/core/quotas";
import type { AgentRegistry, WorkSignal } from "@sema-agent/worker";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "./app-env.ts";
import { type ApproverSettings, approvalPolicy } from "./approval-policy.ts";
import type { EvalsOptions, ExperimentHarness } from "./evals/experiment-runs.ts";
import { CatchUpPacer } from "./events/catch-up-pacer.ts";
import type { EventHub } from "./events/event-hub.ts";
import { FrameCache } from "./events/frame-cache.ts";
import { StreamBudget } from "./events/stream-budget.ts";
import { TaskListFeed } from "./events/task-list-feed.ts";
import { TaskTails } from "./events/task-tail.ts";
import { errorResponse, HttpError, toHttpError } from "./http-error.ts";
import { type Caller, type Ingress, withTraceContext } from "./ingress/caller.ts";
import { RateLimiter } from "./ingress/rate-limit.ts";
import { SPEAKER_HEADER } from "./ingress/speaker.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { mountMetrics } from "./metrics-route.ts";
import { buildOpenApi } from "./openapi.ts";
import { type AnyRouteSpec, mountRoutes } from "./route.ts";
import { agentRoutes } from "./routes/agents.ts";
import { approvalRoutes } from "./routes/approvals.ts";
import { controlRoutes } from "./routes/control.ts";
import type { RouteDeps } from "./routes/deps.ts";
import { evalDatasetRoutes } from "./routes/eval-datasets.ts";
import { evalRoutes } from "./routes/evals.ts";
import { eventRoutes } from "./routes/events.ts";
import { inputRoutes } from "./routes/inputs.ts";
import { TaskQueue } from "./routes/task-queue.ts";
import { taskStreamRoutes } from "./routes/task-stream.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { timeTravelRoutes } from "./routes/time-travel.ts";
import { traceRoutes } from "./routes/trace.ts";
import { usageRoutes } from "./routes/usage.ts";
import {
  approversSchema,
  checkAgents,
  limitsSchema,
  objectWith,
  registrySchema,
  storeSchema,
} from "./server-options.ts";
import { type ProtocolContext, protocolSchema, type ServerProtocol } from "./server-protocol.ts";

/** The HTTP API's version, as the OpenAPI document (`GET /v1/openapi.json`) states it. */
export const API_VERSION = "0.1.0";

/**
 * What `createApp` serves: the store, the agents, the ingress that authenticates each request, and
 * optionally a clock, limits, the live-event hub and worker pool of this process, and who may
 * decide approvals. Checked strictly (`ConfigError`).
 */
export interface AppOptions {
  store: Store;
  agents: AgentRegistry;
  /** Authenticates each request and mints its caller (see `createTokenIngress`). */
  ingress: Ingress;
  /** Milliseconds since the epoch; rate limits and lease checks use it. Default `Date.now`. */
  clock?: () => number;
  limits?: Partial<Limits>;
  /** Live ephemeral deltas from workers in this process (see `EventHub`). */
  hub?: EventHub;
  /** The worker pool in this process, told about new work and asked to resume tasks. */
  workers?: WorkSignal;
  /**
   * Who may decide approvals: the `approver` role by default; per agent (or for all) any verified
   * actor of the task's principal. Ignored when `canApprove` is given.
   */
  approvers?: ApproverSettings;
  /** Who may decide approvals, per caller: replaces the policy built from `approvers`. */
  canApprove?: (caller: Caller) => CanApprove;
  /**
   * The protocols served beside `/v1`, each from its subpath: `a2a()` of
   * `@sema-agent/server/a2a`, `mcp()`, `agUi()`, `uiStream()`, `webConsole()`. Default none: the
   * app serves `/v1` alone and loads none of their SDKs.
   */
  protocols?: readonly ServerProtocol[];
  /**
   * Quotas per principal: `concurrentTasks` refuses a creation past it (429 `QuotaExceeded`) and
   * `GET /v1/usage` reports them. The token and dollar quotas are the workers' (`startWorkers`
   * `quota`, built by `quotaGateFor`); `serve` gives both the same settings.
   */
  quotas?: QuotaSettings;
  /**
   * Where tokens are kept, when their records carry quotas too (`TokenRecord.quotas`): the
   * tightest of the settings' and the principal's live tokens' applies (`quotaResolver`).
   */
  quotaTokens?: QuotaTokenSource;
  /**
   * Serve `GET /metrics`: this returns the Prometheus text of the process's metrics (e.g.
   * `metricsFromEnv(…, { prometheus: true })` of `@sema-agent/otel/metrics-setup`). Absent: no
   * such route (404). The route needs a token with the `metrics` role.
   */
  metrics?: () => Promise<string>;
  /**
   * How experiments (`POST /v1/evals/experiments`) run on this node: `harness`, the settings its
   * workers' legs use (lease holder, `holderDied`, the quota gate, the clock, the sinks), and
   * `shutdown`, the node's stop signal, which stops them (their tasks park as shut down, for a
   * resume). `serve` gives both. Default: no quota gate, the harness's own holder, the legs'
   * deltas to `hub`, no stop.
   */
  evals?: EvalsOptions;
  /**
   * Put the task's texts in `GET /v1/tasks/{taskId}/trace`: prompts, answers, tool inputs and
   * outputs, as the GenAI attributes `@sema-agent/otel` writes with `captureContent`. Default
   * false: a trace then holds timings, structure and token counts only. The operator's choice;
   * no request can turn it on.
   */
  traceContent?: boolean;
}

const harnessShape = {
  holder: holderSchema.optional(),
  holderDied: functionSchema<NonNullable<ExperimentHarness["holderDied"]>>("holderDied(holder)").optional(),
  quota: objectWith<NonNullable<ExperimentHarness["quota"]>>(["check"], "a QuotaGate (quotaGateFor)").optional(),
  clock: functionSchema<() => number>("clock() returns milliseconds since the epoch").optional(),
  emit: functionSchema<NonNullable<ExperimentHarness["emit"]>>("emit(event)").optional(),
  childEmit: functionSchema<NonNullable<ExperimentHarness["childEmit"]>>("childEmit(event)").optional(),
  traceparentOf: functionSchema<NonNullable<ExperimentHarness["traceparentOf"]>>("traceparentOf(call)").optional(),
  leaseTtlMs: z.number().positive().optional(),
} satisfies ShapeOf<ExperimentHarness>;
const evalsShape = {
  harness: z.strictObject(harnessShape).optional(),
  driving: z.instanceof(Set<string>, { message: "must be a Set of task ids" }).optional(),
  shutdown: z.instanceof(AbortSignal, { message: "must be an AbortSignal" }).optional(),
} satisfies ShapeOf<EvalsOptions>;

const appShape = {
  store: storeSchema,
  agents: registrySchema,
  ingress: objectWith<Ingress>(["authenticate"], "an Ingress, e.g. createTokenIngress(tokens)"),
  clock: functionSchema<() => number>("clock() returns milliseconds since the epoch").optional(),
  limits: limitsSchema.optional(),
  hub: objectWith<EventHub>(["publish"], "an EventHub").optional(),
  workers: objectWith<WorkSignal>(["notify", "resume"], "the worker pool (startWorkers)").optional(),
  approvers: approversSchema.optional(),
  canApprove: functionSchema<(caller: Caller) => CanApprove>("canApprove(caller)").optional(),
  protocols: z.array(protocolSchema).readonly().optional(),
  quotas: quotaSettingsSchema.optional(),
  quotaTokens: objectWith<QuotaTokenSource>(["list"], "a TokenStore").optional(),
  metrics: functionSchema<() => Promise<string>>("metrics() resolves with the Prometheus text").optional(),
  evals: z.strictObject(evalsShape).optional(),
  traceContent: z.boolean().optional(),
} satisfies ShapeOf<AppOptions>;
const appSchema = z.strictObject(appShape);

const appMatches: SchemaMatches<typeof appSchema, AppOptions> = true;
void appMatches;

/**
 * Every `/v1` route of the API, for the app and for the OpenAPI document: the core's, then those
 * of `protocols` that have any.
 */
export function apiRoutes(deps: RouteDeps, protocols: readonly ServerProtocol[] = []): AnyRouteSpec[] {
  return [
    ...agentRoutes(deps),
    ...taskStreamRoutes(deps),
    ...taskRoutes(deps),
    ...inputRoutes(deps),
    ...approvalRoutes(deps),
    ...controlRoutes(deps),
    ...eventRoutes(deps),
    ...traceRoutes(deps),
    ...timeTravelRoutes(deps),
    ...evalDatasetRoutes(deps),
    ...evalRoutes(deps),
    ...usageRoutes(deps),
    ...protocols.flatMap((protocol) => protocol.routes?.(deps) ?? []),
  ];
}

/**
 * The API over `options`. Its options are checked strictly first (unknown keys by name, each
 * registered agent): a wrong configuration is a `ConfigError` here, not a failure in a request.
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  checkConfig(appSchema, options, "createApp");
  checkAgents(options.agents, "createApp");
  const protocols = options.protocols ?? [];
  checkProtocols(protocols);
  const limits: Limits = resolveLimits(options.limits);
  const now = options.clock ?? Date.now;
  const deps: RouteDeps = {
    store: options.store,
    agents: options.agents,
    limits,
    hub: options.hub,
    streams: {
      tails: new TaskTails(options.store),
      budget: new StreamBudget(limits.sseMaxTotalBufferedBytes),
      // Catch-up frames shared between streams: 16 MiB, next to the 256 MiB of queues it saves work for.
      frames: new FrameCache(16 * 1024 * 1024),
      // Catch-ups of all streams share 1 MiB of pages per turn of the event loop.
      pacer: new CatchUpPacer(),
      list: new TaskListFeed(options.store, {
        now,
        ...(options.quotas?.prices === undefined ? {} : { prices: options.quotas.prices }),
      }),
    },
    workers: options.workers,
    now,
    canApprove: options.canApprove ?? approvalPolicy(options.approvers),
    traceContent: options.traceContent === true,
    approverRuleOf: (agent) =>
      options.canApprove === undefined
        ? (options.approvers?.agents?.[agent] ?? options.approvers?.default ?? "approver-role")
        : "custom",
    inputs: new TaskQueue(),
    ...(options.evals === undefined ? {} : { experiments: options.evals }),
    ...(options.quotas === undefined ? {} : { quotas: options.quotas }),
    ...(options.quotas === undefined && options.quotaTokens === undefined
      ? {}
      : {
          quotasFor: quotaResolver(options.quotas, {
            now,
            ...(options.quotaTokens === undefined ? {} : { tokens: options.quotaTokens }),
          }),
        }),
  };
  const routes = apiRoutes(deps, protocols);
  const openApi = JSON.stringify(buildOpenApi(routes, { title: "Sema API", version: API_VERSION }));
  const rateLimiter = new RateLimiter({ perMinute: limits.ratePerMinute, burst: limits.rateBurst }, now);
  const app = new Hono<AppEnv>();

  app.onError((error) => {
    const http = toHttpError(error);
    // A 500 is a bug or an outage and is never caused by input alone: keep its cause for the logs.
    if (http.code === "Internal") console.error("sema server: unhandled error", error);
    return errorResponse(http);
  });
  app.notFound((c) => errorResponse(new HttpError(404, "NotFound", `no route for ${c.req.method} ${c.req.path}`)));

  app.use("*", async (c, next) => {
    await next();
    c.header("x-content-type-options", "nosniff");
    if (c.res.headers.get("cache-control") === null) c.header("cache-control", "no-store");
  });

  app.get("/v1/openapi.json", (c) => c.body(openApi, 200, { "content-type": "application/json; charset=utf-8" }));
  if (options.metrics !== undefined)
    mountMetrics(app, { ingress: options.ingress, rateLimiter, render: options.metrics });

  app.use("/v1/*", async (c, next) => {
    const caller = withTraceContext(
      await options.ingress.authenticate({
        authorization: c.req.header("authorization"),
        speaker: c.req.header(SPEAKER_HEADER),
      }),
      c.req.raw.headers,
    );
    rateLimiter.take(caller.principal);
    c.set("caller", caller);
    await next();
  });

  mountRoutes(app, routes, limits);
  // Each protocol's own surface (A2A, MCP, the console): the same tokens, rate limits and task
  // actions as /v1.
  const context: ProtocolContext = { deps, ingress: options.ingress, rateLimiter, version: API_VERSION };
  for (const protocol of protocols) protocol.mount?.(app, context);
  return app;
}

/** No protocol twice: two mounts of one would shadow each other's routes. */
function checkProtocols(protocols: readonly ServerProtocol[]): void {
  const seen = new Set<string>();
  protocols.forEach((protocol, index) => {
    if (seen.has(protocol.name))
      throw new ConfigError("createApp", [
        { path: `protocols.${index}`, message: `${protocol.name} is mounted twice: give each protocol once` },
      ]);
    seen.add(protocol.name);
  });
}
