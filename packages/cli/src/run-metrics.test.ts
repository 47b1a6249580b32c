// `sema run` with the OpenTelemetry variables set: the task's metrics reach an
// OTLP receiver on loopback (http/json, decoded here) by the time the command returns, and a bad
// variable stops the command before anything runs.
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo } from "./test-support/capture-io.ts";

interface OtlpMetric {
  name: string;
  histogram?: {
    dataPoints: { attributes: { key: string; value: { stringValue?: string } }[]; count: string | number }[];
  };
  sum?: {
    dataPoints: {
      attributes: { key: string; value: { stringValue?: string } }[];
      asInt?: string | number;
      asDouble?: number;
    }[];
  };
}

const received: { path: string | undefined; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  request.on("end", () => {
    received.push({ path: request.url, body });
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

function metricsReceived(): OtlpMetric[] {
  // The same endpoint also receives the run's traces (at /v1/traces): only metrics are read here.
  return received
    .filter((request) => request.path === "/v1/metrics")
    .flatMap((request) => {
      const body = JSON.parse(request.body) as {
        resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[];
      };
      return body.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
    });
}

describe("metrics over OTLP from the environment", () => {
  it("sema run exports the task's metrics before it exits", { timeout: 60_000 }, async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const { port } = receiver.address() as AddressInfo;
    const dir = mkdtempSync(join(tmpdir(), "sema-run-metrics-"));
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "Counted." }] }));
    const c = captureIo(dir, {
      extra: {
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_METRIC_EXPORT_INTERVAL: "3600000",
        },
      },
    });
    const code = await main(["run", "Count it", "--model", `script:${script}`, "--db", join(dir, "sema.db")], c.io);
    expect(code, c.err()).toBe(0);
    expect(received.map((request) => request.path)).toContain("/v1/metrics");
    const metrics = metricsReceived();
    const chat = metrics.find((metric) => metric.name === "gen_ai.client.operation.duration");
    expect(chat?.histogram?.dataPoints.map((point) => Number(point.count))).toEqual([1]);
    const ended = metrics.find((metric) => metric.name === "sema.task.ended");
    expect(
      ended?.sum?.dataPoints.map((point) => [
        point.attributes.find((attribute) => attribute.key === "sema.task.status")?.value.stringValue,
        Number(point.asInt ?? point.asDouble),
      ]),
    ).toEqual([["completed", 1]]);
  });

  it("a bad variable is a configuration error before the task starts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-run-metrics-"));
    const script = join(dir, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "Never." }] }));
    const c = captureIo(dir, {
      extra: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" } },
    });
    const code = await main(["run", "Count it", "--model", `script:${script}`, "--db", join(dir, "sema.db")], c.io);
    expect(code).not.toBe(0);
    expect(c.err()).toContain("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL");
    expect(c.out()).not.toContain("started");
  });
});
