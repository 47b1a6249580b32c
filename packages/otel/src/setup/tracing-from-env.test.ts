// Tracing from the variables, over a real socket to a local OTLP receiver in both encodings: the
// spans that arrive are the ones the log rebuilds (ids, parents, names, attributes), with the
// resource and headers the variables name. A collector that never answers or refuses the
// connection makes the shutdown give up at its bound, not hang.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../test-support/otlp-receiver.ts";
import { runScriptedTask } from "../trace/test-support.ts";
import type { TraceEmit } from "../trace/trace-emit.ts";
import { traceTask } from "../trace/trace-task.ts";
import { type OtlpTracing, tracingFromEnv } from "./tracing-from-env.ts";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiver(options: { silent?: boolean } = {}) {
  const started = await startOtlpReceiver(options);
  receivers.push(started);
  return started;
}

async function tracedRun(tracing: OtlpTracing) {
  let tracer: TraceEmit | undefined;
  const run = await runScriptedTask((store) => {
    tracer ??= tracing.live(store);
    return tracer.emit;
  });
  return run;
}

/** A port nothing listens on: one a server just gave back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("tracingFromEnv", () => {
  it("is undefined with nothing configured, and when the sampler keeps nothing (unless told not to sample)", async () => {
    expect(await tracingFromEnv({ env: {} })).toBeUndefined();
    const off = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1", OTEL_TRACES_SAMPLER: "always_off" };
    expect(await tracingFromEnv({ env: off })).toBeUndefined();
    const ratio0 = { ...off, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" };
    expect(await tracingFromEnv({ env: ratio0 })).toBeUndefined();
    const unsampled = await tracingFromEnv({ env: off, sample: false });
    expect(unsampled?.config.url).toBe("http://127.0.0.1:1/v1/traces");
    await unsampled?.shutdown();
  });

  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`exports the live trace over ${protocol}: the spans the log rebuilds, with the resource and headers asked for`, {
      timeout: 20_000,
    }, async () => {
      const otlp = await receiver();
      const tracing = await tracingFromEnv({
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=s%3Dcret",
          OTEL_SERVICE_NAME: "planner-svc",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
        },
      });
      if (tracing === undefined) throw new Error("no tracing");
      const { store, taskId } = await tracedRun(tracing);
      expect(await tracing.shutdown()).toBe(true);

      expect(otlp.requests.length).toBeGreaterThan(0);
      for (const request of otlp.requests) {
        expect(request.path).toBe("/v1/traces");
        expect(request.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
        expect(request.headers["x-api-key"]).toBe("s=cret");
      }
      const rebuilt = new InMemorySpanExporter();
      await traceTask(store, taskId, { exporter: rebuilt, env: {} });
      const expected = rebuilt
        .getFinishedSpans()
        .map((span) => ({
          spanId: span.spanContext().spanId,
          traceId: span.spanContext().traceId,
          parentSpanId: span.parentSpanContext?.spanId ?? "",
          name: span.name,
          attributes: { ...span.attributes },
        }))
        .sort((a, b) => a.spanId.localeCompare(b.spanId));
      const received = otlp
        .spans()
        .map(({ spanId, traceId, parentSpanId, name, attributes }) => ({
          spanId,
          traceId,
          parentSpanId,
          name,
          attributes,
        }))
        .sort((a, b) => a.spanId.localeCompare(b.spanId));
      expect(received).toEqual(expected);
      const names = received.map((span) => span.name);
      expect(names).toEqual(expect.arrayContaining(["invoke_agent planner", "sema.leg", "chat planner"]));
      expect(names.filter((name) => name === "execute_tool lookup")).toHaveLength(1);
      for (const span of otlp.spans()) {
        expect(span.resource).toMatchObject({ "service.name": "planner-svc", "deployment.environment.name": "test" });
        expect(span.scope).toBe("@sema-agent/otel");
      }
    });
  }

  it("names a TLS file it cannot read, before anything is exported", async () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://127.0.0.1:1",
      OTEL_EXPORTER_OTLP_CERTIFICATE: "/nonexistent/ca.pem",
    };
    await expect(tracingFromEnv({ env })).rejects.toThrow(
      /OTEL_EXPORTER_OTLP_CERTIFICATE names \/nonexistent\/ca.pem, which cannot be read/,
    );
  });

  it("takes service.name from OTEL_RESOURCE_ATTRIBUTES when OTEL_SERVICE_NAME is unset", async () => {
    const otlp = await receiver();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attributes" };
    const tracing = await tracingFromEnv({ env });
    if (tracing === undefined) throw new Error("no tracing");
    await tracedRun(tracing);
    expect(await tracing.shutdown()).toBe(true);
    expect(new Set(otlp.spans().map((span) => span.resource["service.name"]))).toEqual(new Set(["from-attributes"]));
  });

  it("gives up at its bound on a collector that never answers, and on one that refuses the connection", {
    timeout: 20_000,
  }, async () => {
    const silent = await receiver({ silent: true });
    for (const url of [silent.url, `http://127.0.0.1:${await closedPort()}`]) {
      const tracing = await tracingFromEnv({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: url } });
      if (tracing === undefined) throw new Error("no tracing");
      const { store, taskId } = await tracedRun(tracing);
      // The task ran to its end whatever the collector did.
      expect((await store.getTask(taskId)).summary.status).toBe("completed");
      expect(await tracing.shutdown({ timeoutMs: 300 })).toBe(false);
    }
    expect(silent.requests.length).toBeGreaterThan(0);
  });
});
