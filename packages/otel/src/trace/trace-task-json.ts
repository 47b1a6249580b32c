/**
 * A task's rebuilt trace as OTLP/JSON: the `ExportTraceServiceRequest` an OTLP/HTTP exporter posts
 * to `/v1/traces`, so any OTLP tool (a collector, Jaeger, Tempo) can load it. The OpenTelemetry
 * SDK's own transformer writes it, not a copy of its rules here; it is loaded on first use, so a
 * host that only exports live never loads it.
 */
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Store } from "@sema-agent/core";
import type { TraceOptions } from "./trace-options.ts";
import { traceTask } from "./trace-task.ts";

/** What `traceTaskJson` accepts: `traceTask`'s options but the exporter (it collects the spans itself). */
export type TraceJsonOptions = Omit<TraceOptions, "exporter">;

/** Collects what `traceTask` exports, in order. */
function collector(spans: ReadableSpan[]): SpanExporter {
  return {
    export(batch, done) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
}

/**
 * Rebuilds the task's trace from its log (exactly as `traceTask` does: same spans, ids and stored
 * times; no text of the task unless content capture is on) and resolves with it as OTLP/JSON text:
 * ids in hex, times in nanoseconds since the epoch as decimal strings, enums as numbers.
 */
export async function traceTaskJson(store: Store, taskId: string, options: TraceJsonOptions = {}): Promise<string> {
  const spans: ReadableSpan[] = [];
  await traceTask(store, taskId, { ...options, exporter: collector(spans) });
  const { JsonTraceSerializer } = await import("@opentelemetry/otlp-transformer");
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  return bytes === undefined ? '{"resourceSpans":[]}' : new TextDecoder().decode(bytes);
}
