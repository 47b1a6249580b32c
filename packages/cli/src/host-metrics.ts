/**
 * A host's metrics (`sema serve`, `sema worker`, `sema run`): OTLP when the standard variables ask
 * for it, and the Prometheus text of `GET /metrics` on `sema serve --metrics`. With neither,
 * nothing of OpenTelemetry is loaded, not even `@sema-agent/otel` (imported only when a variable
 * or the flag may ask for metrics; `metricsFromEnv` then decides) and the host runs on its store
 * as it is. With either, the host writes through the instrumented store, so
 * every event this process appends is counted once.
 */
import type { Agent, Store } from "@sema-agent/core";
import type { StoreStats } from "@sema-agent/core/store-kit";
import type { CliIo } from "./context.ts";
import { terminalSafe } from "./terminal-safe.ts";

/** Runnable tasks counted at most, per collection (a listing of the store). */
const RUNNABLE_CAP = 1000;

/** How long one count of the store's tasks by status and its size serves collections: it reads the whole tasks table. */
const STORE_SIZES_MS = 30_000;

/** The host's metrics, or nothing to do. */
export interface HostMetrics {
  /** The store to run on: instrumented when metrics are on. */
  store: Store;
  /** The Prometheus text, when asked for. */
  prometheus?: () => Promise<string>;
  /** Feeds the gauges: legs running here (the pool) and runnable tasks (a bounded store listing). */
  observe(running?: () => number): void;
  /** Exports what is left, bounded (a collector that does not answer never keeps the host up). */
  shutdown(): Promise<void>;
}

/** Whether the flag or a variable may ask for metrics: a superset of what `metricsFromEnv` decides, read without loading it. */
function mayWantMetrics(io: CliIo, prometheus: boolean): boolean {
  const given = (value: string | undefined) => value !== undefined && value.trim() !== "";
  return (
    prometheus ||
    given(io.env.OTEL_METRICS_EXPORTER) ||
    given(io.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) ||
    given(io.env.OTEL_EXPORTER_OTLP_ENDPOINT)
  );
}

/** Sets the host's metrics up over `store` (a bad variable is a `ConfigError`, before anything runs). */
export async function openHostMetrics(
  io: CliIo,
  store: Store,
  who: string,
  options: { prometheus?: boolean; agents?: Iterable<Agent> } = {},
): Promise<HostMetrics> {
  const report = (error: unknown) =>
    io.stderr.write(`${terminalSafe(`${who}: metrics: ${error instanceof Error ? error.message : String(error)}`)}\n`);
  const off: HostMetrics = { store, observe: () => {}, shutdown: async () => {} };
  if (!mayWantMetrics(io, options.prometheus === true)) return off;
  const { agentToolNames, metricsFromEnv } = await import("@sema-agent/otel/metrics-setup");
  const metrics = await metricsFromEnv(io.env, {
    store,
    // Only the agents' own tool names become labels: a name a model makes up is `_OTHER`.
    ...(options.agents === undefined ? {} : { toolNames: agentToolNames(options.agents) }),
    ...(options.prometheus === true ? { prometheus: true } : {}),
    onError: report,
  });
  if (metrics === undefined) return off;
  return {
    store: metrics.store ?? store,
    ...(metrics.prometheus === undefined ? {} : { prometheus: metrics.prometheus }),
    observe(running) {
      const stats = store.stats?.bind(store);
      let sizes: { at: number; read: Promise<StoreStats> } | undefined;
      metrics.observe({
        runnable: async () => (await store.listRunnable({ limit: RUNNABLE_CAP })).length,
        ...(running === undefined ? {} : { running }),
        ...(stats === undefined
          ? {}
          : {
              store: () => {
                const now = Date.now();
                if (sizes === undefined || now - sizes.at >= STORE_SIZES_MS)
                  sizes = { at: now, read: stats({ events: false, largest: 0 }) };
                const read = sizes.read;
                // A failed count is not kept: the next collection asks again.
                read.catch(() => {
                  if (sizes?.read === read) sizes = undefined;
                });
                return read;
              },
            }),
      });
    },
    shutdown: () => metrics.shutdown(5000),
  };
}
