/**
 * `serve` (Node): the embedded default in one call — the API and a worker pool in one process over one
 * store, on loopback unless told otherwise, with the first token created on an empty token store.
 * This is what `sema serve` runs.
 */
import type { Emit, HarnessOptions, Store, StreamEvent } from "@sema-agent/core";
import { holderDiedHere, nodeHolder } from "@sema-agent/core/node";
import { checkConfig, functionSchema, type SchemaMatches, type ShapeOf } from "@sema-agent/core/protocol";
import { checkQuotaPrices, type QuotaSettings, quotaGateFor, quotaSettingsSchema } from "@sema-agent/core/quotas";
import { type AgentRegistry, type StopResult, startWorkers, type WorkerPool } from "@sema-agent/worker";
import { z } from "zod";
import { createApp } from "../app.ts";
import type { ApproverSettings } from "../approval-policy.ts";
import { experimentsStopped } from "../evals/experiment-runs.ts";
import { EventHub } from "../events/event-hub.ts";
import { ensureFirstToken } from "../ingress/first-token.ts";
import { createTokenIngress } from "../ingress/token-ingress.ts";
import type { CreatedToken, TokenStore } from "../ingress/token-store.ts";
import type { Limits } from "../limits.ts";
import {
  approversSchema,
  checkAgents,
  limitsSchema,
  objectWith,
  registrySchema,
  storeSchema,
  type WorkersOptions,
  workersShape,
} from "../server-options.ts";
import { protocolSchema, type ServerProtocol } from "../server-protocol.ts";
import { type AccessLogEntry, bindPort } from "./listen.ts";

/**
 * What {@link serve} runs: the task store, the token store, the agents, where to listen, limits, who
 * may decide approvals, and the worker pool's settings (or `false` for an API-only node). Checked
 * strictly (`ConfigError`).
 */
export interface ServeOptions {
  store: Store;
  /** Where bearer tokens live; on an empty one the first token is created (and returned once). */
  tokens: TokenStore;
  agents: AgentRegistry;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 7777; 0 picks a free port. */
  port?: number;
  limits?: Partial<Limits>;
  /** Who may decide approvals (default: the `approver` role); see `AppOptions.approvers`. */
  approvers?: ApproverSettings;
  /** `false`: an API-only node; tasks run on workers elsewhere (they share the store). */
  workers?: WorkersOptions | false;
  /** A worker's leg or poll failed (the task's log stays consistent). Default: `console.error`. */
  onError?: (error: unknown, taskId: string | undefined) => void;
  /**
   * Also given every event the in-process workers' legs emit, beside the API's own hub (a
   * tracer's sink such as `traceEmit(…).emit` of `@sema-agent/otel`). A throw is ignored.
   */
  emit?: Emit;
  /**
   * More harness options for the in-process workers' legs, for a tracer: `childEmit` receives the
   * events of the children a leg runs in this process (neither the hub nor `emit` gets them), and
   * `traceparentOf` gives each tool call its span's `traceparent` for its A2A and MCP requests
   * (see `WorkerOptions.harness`). `traceEmit(…).harness` of `@sema-agent/otel` fits as it is:
   * its `emit` is not used here (give it as `emit`).
   */
  harness?: Pick<HarnessOptions, "emit" | "childEmit" | "traceparentOf">;
  /**
   * The protocols served beside `/v1` (see `AppOptions.protocols`): `a2a()`, `mcp()`, `agUi()`,
   * `uiStream()`, `webConsole()` from their subpaths. Default none. Each one's `start` runs once
   * the port is bound (A2A's owed push notifications), its `close` as the server closes.
   */
  protocols?: readonly ServerProtocol[];
  /**
   * Quotas per principal, enforced by the API (`concurrentTasks`, 429 at creation) and by this
   * process's workers (tokens and dollars: `parked:quota`), together with those on the tokens'
   * records (the tightest applies). Without it no quota is enforced, a token's neither; `{}` turns
   * quotas on with none but the tokens'. Nodes sharing a store should be given the same settings.
   */
  quotas?: QuotaSettings;
  /**
   * Milliseconds since the epoch, for the quota windows, rate limits and the in-process workers'
   * legs (their `HarnessOptions.clock`). Default `Date.now`.
   */
  clock?: () => number;
  /** Serve `GET /metrics` with this Prometheus text (see `AppOptions.metrics`; needs the `metrics` role). */
  metrics?: () => Promise<string>;
  /**
   * Called once per request with its method, path (never its query string or headers), status and
   * duration, for an access log (`sema serve --access-log`). A throw loses the line. Default: none.
   */
  accessLog?: (entry: AccessLogEntry) => void;
  /** Put the task's texts in `GET /v1/tasks/{taskId}/trace` (see `AppOptions.traceContent`). Default false. */
  traceContent?: boolean;
}

const serveShape = {
  store: storeSchema,
  tokens: objectWith<TokenStore>(
    ["create", "verify", "revoke", "list", "close"],
    "a TokenStore, e.g. new MemoryTokenStore()",
  ),
  agents: registrySchema,
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  limits: limitsSchema.optional(),
  approvers: approversSchema.optional(),
  workers: z.union([z.literal(false), z.strictObject(workersShape)]).optional(),
  onError: functionSchema<(error: unknown, taskId: string | undefined) => void>("onError(error, taskId)").optional(),
  emit: functionSchema<Emit>("emit(event)").optional(),
  harness: z
    .strictObject({
      // A tracer's whole `harness` is accepted; its `emit` is the top-level `emit`'s business.
      emit: functionSchema<Emit>("emit(event)").optional(),
      childEmit: functionSchema<Emit>("childEmit(event)").optional(),
      traceparentOf: functionSchema<NonNullable<HarnessOptions["traceparentOf"]>>("traceparentOf(call)").optional(),
    })
    .optional(),
  protocols: z.array(protocolSchema).readonly().optional(),
  quotas: quotaSettingsSchema.optional(),
  clock: functionSchema<() => number>("clock() returns milliseconds since the epoch").optional(),
  metrics: functionSchema<() => Promise<string>>("metrics() resolves with the Prometheus text").optional(),
  accessLog: functionSchema<(entry: AccessLogEntry) => void>("accessLog(entry)").optional(),
  traceContent: z.boolean().optional(),
} satisfies ShapeOf<ServeOptions>;
const serveSchema = z.strictObject(serveShape);
const serveMatches: SchemaMatches<typeof serveSchema, ServeOptions> = true;
void serveMatches;

/** A running {@link serve}: its URL, the first token when one was created, the worker pool, and a graceful stop. */
export interface Serving {
  url: string;
  /** Set on the first start (no token existed): show it once, it is not stored. */
  firstToken?: CreatedToken;
  /** Absent on an API-only node. */
  workers?: WorkerPool;
  /**
   * Graceful stop: the workers stop claiming and park their legs, and running experiments
   * (`POST /v1/evals/experiments`) stop, parking theirs, within `deadlineMs` (default 10 s), then the HTTP server closes (open event streams end). The store and token store stay
   * open: the caller closes them.
   */
  close(options?: { deadlineMs?: number }): Promise<StopResult>;
}

/**
 * Start serving. The options (and every registered agent) are checked first: a wrong
 * configuration is a `ConfigError` before a token is created, a worker started or a port bound.
 * Then the port is bound: one that cannot be (`EADDRINUSE`, `EACCES`) rejects with Node's error
 * before the first token is created, so that token is never spent on a start that failed.
 */
export async function serve(options: ServeOptions): Promise<Serving> {
  checkConfig(serveSchema, options, "serve");
  checkAgents(options.agents, "serve");
  if (options.quotas !== undefined) {
    // A dollar quota over an unpriced model never binds: refused here, before a port is bound.
    const records = await options.tokens.list();
    checkQuotaPrices(
      options.quotas,
      options.agents.names().flatMap((name) => {
        const agent = options.agents.get(name);
        return agent === undefined ? [] : [[name, agent] as const];
      }),
      "serve",
      records
        .filter((record) => record.revokedAt === undefined)
        .map((record) => [`tokens.${record.tokenId}.quotas`, record.quotas] as const),
    );
  }
  // The port first: one in use is refused before the one-time first token is minted (and lost).
  const listening = await bindPort({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.accessLog === undefined ? {} : { accessLog: options.accessLog }),
  });
  let firstToken: CreatedToken | undefined;
  try {
    firstToken = await ensureFirstToken(options.tokens);
  } catch (error) {
    await listening.close();
    throw error;
  }
  const hub = new EventHub();
  // With quotas on: the settings' and the tokens' records', for the API and this process's
  // workers. Without, no gate at all: legs run exactly as they did before quotas existed.
  const quota =
    options.quotas === undefined
      ? undefined
      : quotaGateFor(options.store, options.quotas, {
          tokens: options.tokens,
          ...(options.clock === undefined ? {} : { now: options.clock }),
        });
  const observe = options.emit;
  // The workers publish to the hub, and to the host's own sink when it has one.
  const sink =
    observe === undefined
      ? hub
      : {
          publish: (event: StreamEvent) => {
            hub.publish(event);
            try {
              observe(event);
            } catch {
              // An observer's failure never reaches a leg.
            }
          },
        };
  // The tasks this node's experiments drive: its workers leave them to the experiment, whose legs
  // send each case's later inputs at their turns.
  const experimentTasks = new Set<string>();
  const workers =
    options.workers === false
      ? undefined
      : startWorkers({
          store: options.store,
          agents: options.agents,
          hub: sink,
          // The pool takes only childEmit and traceparentOf from it: the legs' emit stays the hub's.
          ...(options.harness === undefined ? {} : { harness: options.harness }),
          ...options.workers,
          exclude: () => experimentTasks,
          ...(quota === undefined ? {} : { quota }),
          ...(options.onError === undefined ? {} : { onError: options.onError }),
          // One clock for the whole process: the legs' readings too (HarnessOptions.clock).
          ...(options.clock === undefined ? {} : { now: options.clock }),
        });
  const protocols = options.protocols ?? [];
  // Experiments run on this node with the workers' settings, and stop (parked as shut down) with it.
  const stopExperiments = new AbortController();
  const workerSettings = options.workers === false ? {} : (options.workers ?? {});
  const app = createApp({
    store: options.store,
    agents: options.agents,
    ingress: createTokenIngress(options.tokens),
    hub,
    ...(workers === undefined ? {} : { workers }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
    protocols,
    ...(options.quotas === undefined ? {} : { quotas: options.quotas, quotaTokens: options.tokens }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.traceContent === undefined ? {} : { traceContent: options.traceContent }),
    evals: {
      harness: {
        holder: workerSettings.holder ?? nodeHolder(),
        holderDied: holderDiedHere,
        emit: sink.publish,
        ...(options.harness?.childEmit === undefined ? {} : { childEmit: options.harness.childEmit }),
        ...(options.harness?.traceparentOf === undefined ? {} : { traceparentOf: options.harness.traceparentOf }),
        ...(workerSettings.leaseTtlMs === undefined ? {} : { leaseTtlMs: workerSettings.leaseTtlMs }),
        ...(quota === undefined ? {} : { quota }),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
      },
      driving: experimentTasks,
      shutdown: stopExperiments.signal,
    },
  });
  listening.serve(app);
  try {
    for (const protocol of protocols) await protocol.start?.();
  } catch (error) {
    stopExperiments.abort();
    await workers?.stop({ deadlineMs: 0 });
    await closeProtocols(protocols);
    await listening.close();
    throw error;
  }
  return {
    url: listening.url,
    ...(firstToken === undefined ? {} : { firstToken }),
    ...(workers === undefined ? {} : { workers }),
    async close(closeOptions = {}) {
      // Running experiments stop with the workers: their legs park as shut down while the workers' do.
      stopExperiments.abort();
      const [result] = await Promise.all([
        workers?.stop(closeOptions) ?? { stopped: [], abandoned: [] },
        experimentsStopped(stopExperiments.signal, closeOptions.deadlineMs ?? 10_000),
      ]);
      await closeProtocols(protocols);
      await listening.close();
      return result;
    },
  };
}

/** Close every protocol, each even when another's close fails; the first failure is rethrown. */
async function closeProtocols(protocols: readonly ServerProtocol[]): Promise<void> {
  const results = await Promise.allSettled(protocols.map(async (protocol) => protocol.close?.()));
  const failed = results.find((result) => result.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}
