// metricsFromEnv: nothing when nothing is asked, a ConfigError naming each bad variable, the
// Prometheus text of a task's metrics, and OTLP over a real socket to a receiver on loopback.

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "@sema-agent/core/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { metricsFromEnv, metricsWanted, otlpMetricsSettings } from "./metrics-from-env.ts";
import { clockedStore, runScriptedTask } from "./test-support.ts";

const shutdowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const shutdown of shutdowns.splice(0)) await shutdown();
});

/** Every sample line of a Prometheus text exposition is `name{labels} value`; metadata comments name a metric. */
function checkPrometheusText(text: string): void {
  const sample =
    /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)( -?[0-9]+)?$/;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) expect(line).toMatch(/^# (HELP|TYPE|UNIT) [a-zA-Z_:][a-zA-Z0-9_:]* /);
    else expect(line).toMatch(sample);
  }
}

describe("metricsFromEnv", () => {
  it("is undefined when neither OTLP nor Prometheus is asked for", async () => {
    expect(await metricsFromEnv({})).toBeUndefined();
    expect(metricsWanted({ OTEL_METRICS_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" })).toBe(
      false,
    );
    expect(metricsWanted({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" })).toBe(false);
    expect(metricsWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" })).toBe(true);
    expect(metricsWanted({}, { prometheus: true })).toBe(true);
  });

  it("reads the standard variables, the metrics-specific ones first", () => {
    expect(
      otlpMetricsSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=two%20words",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "b=3",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_METRIC_EXPORT_INTERVAL: "1000",
      }),
    ).toEqual({
      exporter: "otlp",
      protocol: "http/json",
      url: "http://collector:4318/v1/metrics",
      headers: { a: "1", b: "3" },
      timeoutMillis: undefined,
      intervalMillis: 1000,
      exportTimeoutMillis: 1000,
      temporality: "cumulative",
    });
    expect(
      otlpMetricsSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://other:4318/custom",
      })?.url,
    ).toBe("http://other:4318/custom");
  });

  it("refuses a bad variable with a ConfigError naming it", () => {
    const problems = (env: Record<string, string>) => {
      try {
        otlpMetricsSettings(env);
        return [];
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.problems.map((problem) => problem.path);
      }
    };
    expect(problems({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" })).toEqual([
      "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    ]);
    expect(problems({ OTEL_METRICS_EXPORTER: "prometheus" })).toEqual(["OTEL_METRICS_EXPORTER"]);
    expect(problems({ OTEL_METRIC_EXPORT_INTERVAL: "soon", OTEL_EXPORTER_OTLP_ENDPOINT: "c:4318" })).toEqual([
      "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
      "OTEL_METRIC_EXPORT_INTERVAL",
    ]);
  });

  it("serves a task's metrics as Prometheus text, the GenAI histograms with their buckets", async () => {
    const raw = clockedStore();
    const metrics = await metricsFromEnv({}, { store: raw, prometheus: true });
    if (metrics?.store === undefined || metrics.prometheus === undefined) throw new Error("no Prometheus metrics");
    shutdowns.push(() => metrics.shutdown());
    const store = metrics.store;
    metrics.observe({
      runnable: () => 3,
      running: () => 1,
      store: async () => ({ tasks: { completed: 2, parked: 0 }, storeBytes: 4096 }),
    });
    await runScriptedTask(() => store, raw);
    const text = await metrics.prometheus();
    checkPrometheusText(text);
    expect(text).toContain("# TYPE gen_ai_client_operation_duration histogram");
    expect(text).toContain("# UNIT gen_ai_client_operation_duration s");
    expect(text).toMatch(
      /gen_ai_client_operation_duration_count\{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="gpt-test"[^}]*\} 3/,
    );
    expect(text).toMatch(/gen_ai_client_token_usage_bucket\{[^}]*gen_ai_token_type="input"[^}]*le="16"\} 3/);
    expect(text).toMatch(/sema_task_ended_total\{[^}]*sema_task_status="completed"[^}]*\} 1/);
    expect(text).toMatch(/sema_tasks_runnable\{[^}]*\} 3/);
    expect(text).toMatch(/sema_legs_running\{[^}]*\} 1/);
    expect(text).toMatch(/sema_tasks\{[^}]*sema_task_status="completed"[^}]*\} 2/);
    expect(text).toMatch(/sema_tasks\{[^}]*sema_task_status="parked"[^}]*\} 0/);
    expect(text).toMatch(/sema_store_bytes\{[^}]*\} 4096/);
    // The histograms come from the producer, the counters from the SDK: each metric once.
    expect(text.match(/^# TYPE gen_ai_client_operation_duration histogram$/gm)).toHaveLength(1);
    expect(text.match(/^# TYPE sema_store_append_duration histogram$/gm)).toHaveLength(1);
    expect(text.match(/^# TYPE sema_task_ended_total counter$/gm)).toHaveLength(1);
  });
});

/** A collector on loopback that keeps every body it is sent. */
async function collector(): Promise<{ port: number; bodies: { type: string | undefined; body: string }[] }> {
  const bodies: { type: string | undefined; body: string }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      bodies.push({ type: request.headers["content-type"], body });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  shutdowns.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, bodies };
}

/** Each histogram's name and temporality (OTLP/JSON: 1 delta, 2 cumulative) in the bodies sent. */
function histogramTemporalities(bodies: readonly { body: string }[]): [string, number][] {
  const out: [string, number][] = [];
  for (const { body } of bodies)
    for (const resource of JSON.parse(body).resourceMetrics ?? [])
      for (const scope of resource.scopeMetrics ?? [])
        for (const metric of scope.metrics ?? [])
          if (metric.histogram !== undefined) out.push([metric.name, metric.histogram.aggregationTemporality]);
  return out.sort();
}

describe("OTLP export", () => {
  it("keeps the histograms on the SDK's instruments when the variables ask for delta", async () => {
    for (const [preference, temporality] of [
      ["cumulative", 2],
      ["delta", 1],
      ["lowmemory", 1],
    ] as const) {
      const { port, bodies } = await collector();
      const raw = clockedStore();
      const metrics = await metricsFromEnv(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_METRIC_EXPORT_INTERVAL: "3600000",
          OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: preference,
        },
        { store: raw },
      );
      if (metrics?.store === undefined) throw new Error("no metrics");
      const store = metrics.store;
      await runScriptedTask(() => store, raw);
      await metrics.shutdown();
      const sent = histogramTemporalities(bodies);
      expect(sent.map(([name]) => name)).toEqual([
        "gen_ai.client.operation.duration",
        "gen_ai.client.token.usage",
        "sema.approval.wait.duration",
        "sema.input.delivery.duration",
        "sema.leg.duration",
        "sema.store.append.duration",
        "sema.task.duration",
        "sema.tool.duration",
      ]);
      expect(sent.every(([, sentTemporality]) => sentTemporality === temporality)).toBe(true);
    }
  });

  it("sends the metrics to the collector the variables name (http/json), on shutdown at the latest", async () => {
    const { port, bodies } = await collector();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "3600000",
      OTEL_SERVICE_NAME: "sema-test",
    };
    const raw = clockedStore();
    const metrics = await metricsFromEnv(env, { store: raw });
    if (metrics?.store === undefined) throw new Error("no metrics");
    expect(metrics.prometheus).toBeUndefined();
    const store = metrics.store;
    await runScriptedTask(() => store, raw);
    await metrics.shutdown();
    const sent = bodies.map((body) => JSON.stringify(JSON.parse(body.body)));
    expect(bodies.every((body) => body.type === "application/json")).toBe(true);
    const all = sent.join("\n");
    expect(all).toContain('"gen_ai.client.operation.duration"');
    expect(all).toContain('"gen_ai.client.token.usage"');
    expect(all).toContain('"sema.task.ended"');
    expect(all).toContain('"sema-test"');
  });

  it("never holds the host up when the collector is unreachable: shutdown is bounded", async () => {
    const raw = clockedStore();
    // A port nothing listens on (a server bound and closed again).
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const metrics = await metricsFromEnv(
      { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_METRIC_EXPORT_INTERVAL: "3600000" },
      { store: raw },
    );
    if (metrics?.store === undefined) throw new Error("no metrics");
    const store = metrics.store;
    const { taskId } = await runScriptedTask(() => store, raw);
    expect((await raw.getTask(taskId)).summary.status).toBe("completed");
    await metrics.shutdown(500);
  });
});
