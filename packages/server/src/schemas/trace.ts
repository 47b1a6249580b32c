/**
 * `GET /v1/tasks/{taskId}/trace`: OTLP/JSON, as the OpenTelemetry protocol defines it
 * (opentelemetry-proto's `ExportTraceServiceRequest` in its JSON mapping). Documented here, not
 * validated: the body is written by the OpenTelemetry SDK's own serializer.
 */
import { z } from "zod";
import { named } from "./registry.ts";

export const OtlpKeyValue = named(
  "OtlpKeyValue",
  z.looseObject({
    key: z.string(),
    value: z.looseObject({
      stringValue: z.string().optional(),
      boolValue: z.boolean().optional(),
      intValue: z.union([z.number().int(), z.string()]).optional(),
      doubleValue: z.number().optional(),
      arrayValue: z.looseObject({ values: z.array(z.looseObject({})) }).optional(),
    }),
  }),
  "An attribute: a key and one typed value (`stringValue`, `boolValue`, `intValue`, `doubleValue`, `arrayValue`).",
);

const nanos = z.string().regex(/^\d+$/).describe("Nanoseconds since the Unix epoch, as a decimal string.");

export const OtlpSpan = named(
  "OtlpSpan",
  z.looseObject({
    traceId: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .describe("Derived from the task id: the same in every rebuild."),
    spanId: z.string().regex(/^[0-9a-f]{16}$/),
    parentSpanId: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .optional()
      .describe("Absent on the task's root span."),
    name: z.string().describe("`invoke_agent {agent}`, `sema.leg`, `chat {model}`, `execute_tool {tool}`."),
    kind: z.number().int().describe("1 internal, 3 client (a model call)."),
    startTimeUnixNano: nanos,
    endTimeUnixNano: nanos,
    attributes: z.array(OtlpKeyValue),
    events: z.array(
      z.looseObject({ name: z.string(), timeUnixNano: nanos, attributes: z.array(OtlpKeyValue).optional() }),
    ),
    status: z.looseObject({
      code: z.number().int().optional().describe("0 unset, 1 ok, 2 error."),
      message: z.string().optional(),
    }),
  }),
  "One span, at the stored times of the events that opened and ended it.",
);

export const TraceRequest = named(
  "TraceRequest",
  z.looseObject({
    resourceSpans: z.array(
      z.looseObject({
        resource: z.looseObject({ attributes: z.array(OtlpKeyValue) }),
        scopeSpans: z.array(
          z.looseObject({
            scope: z.looseObject({ name: z.string(), version: z.string().optional() }),
            spans: z.array(OtlpSpan),
          }),
        ),
      }),
    ),
  }),
  "The task's trace rebuilt from its log, as an OTLP/JSON ExportTraceServiceRequest: the body an OTLP/HTTP exporter posts to `/v1/traces`, so a collector, Jaeger or Tempo accepts it as is.",
);
