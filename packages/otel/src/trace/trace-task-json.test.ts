// The rebuilt trace as OTLP/JSON: the spans traceTask exports, in the wire shape of OTLP/HTTP
// (hex ids, nanosecond strings, numeric enums), with no text of the task unless capture is on.
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { MemoryStore } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { runScriptedTask, TEXTS } from "./test-support.ts";
import { traceTask } from "./trace-task.ts";
import { traceTaskJson } from "./trace-task-json.ts";

type KeyValue = { key: string; value: Record<string, unknown> };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  events: { name: string; timeUnixNano: string; attributes: KeyValue[] }[];
  status: { code: number; message?: string };
};
type Request = {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
};

const nanos = (time: readonly [number, number]) => (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();

describe("traceTaskJson", () => {
  it("is the trace traceTask exports, as an OTLP/JSON ExportTraceServiceRequest", async () => {
    const { store, taskId } = await runScriptedTask();
    const exporter = new InMemorySpanExporter();
    await traceTask(store, taskId, { exporter, env: {} });
    const expected = exporter.getFinishedSpans();

    const request = JSON.parse(await traceTaskJson(store, taskId, { env: {} })) as Request;
    expect(request.resourceSpans).toHaveLength(1);
    const [resourceSpans] = request.resourceSpans;
    expect(resourceSpans?.resource.attributes).toEqual([{ key: "service.name", value: { stringValue: "sema" } }]);
    expect(resourceSpans?.scopeSpans.map((scope) => scope.scope.name)).toEqual(["@sema-agent/otel"]);
    const spans = resourceSpans?.scopeSpans[0]?.spans ?? [];

    expect(spans.map((span) => span.spanId)).toEqual(expected.map((span) => span.spanContext().spanId));
    for (const [index, span] of spans.entries()) {
      const want = expected[index];
      if (want === undefined) throw new Error("more spans than traceTask exported");
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.traceId).toBe(want.spanContext().traceId);
      expect(span.parentSpanId).toBe(want.parentSpanContext?.spanId);
      expect(span.name).toBe(want.name);
      // OTLP numbers its kinds from 1 (INTERNAL) where the API numbers them from 0.
      expect(span.kind).toBe(want.kind + 1);
      expect(span.startTimeUnixNano).toBe(nanos(want.startTime));
      expect(span.endTimeUnixNano).toBe(nanos(want.endTime));
      expect(span.status.code).toBe(want.status.code);
      expect(span.events.map((event) => [event.name, event.timeUnixNano])).toEqual(
        want.events.map((event) => [event.name, nanos(event.time)]),
      );
      expect(Object.fromEntries(span.attributes.map(({ key, value }) => [key, Object.values(value)[0]]))).toEqual(
        Object.fromEntries(
          Object.entries(want.attributes).map(([key, value]) => [
            key,
            Array.isArray(value) ? expect.anything() : value,
          ]),
        ),
      );
    }
    const names = spans.map((span) => span.name);
    expect(names).toContain("execute_tool lookup");
    expect(names).toContain("execute_tool write_file");
    expect(names.filter((name) => name === "sema.leg")).toHaveLength(2);
  });

  it("carries no text of the task unless content capture is on", async () => {
    const { store, taskId } = await runScriptedTask();
    const off = await traceTaskJson(store, taskId, { env: {} });
    for (const text of Object.values(TEXTS)) expect(off).not.toContain(text);
    const fromEnv = await traceTaskJson(store, taskId, {
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true", OTEL_SERVICE_NAME: "planner-svc" },
    });
    expect(fromEnv).toContain(TEXTS.objective);
    expect(fromEnv).toContain('"stringValue":"planner-svc"');
    // Given, the option wins over the variable.
    const overridden = await traceTaskJson(store, taskId, {
      captureContent: false,
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" },
    });
    for (const text of Object.values(TEXTS)) expect(overridden).not.toContain(text);
  });

  it("fails as traceTask does for a task that does not exist", async () => {
    await expect(traceTaskJson(new MemoryStore(), "nope", { env: {} })).rejects.toMatchObject({ code: "TaskNotFound" });
  });
});
