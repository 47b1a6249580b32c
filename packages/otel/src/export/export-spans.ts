/** Hands ReadableSpans to an SDK exporter, as a promise of its result. */
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/** Exports `spans` through `exporter`; resolves on success, rejects with the exporter's error. */
export function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  if (spans.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    exporter.export(spans, (result) => {
      // ExportResultCode.SUCCESS is 0 (a numeric enum of @opentelemetry/core).
      if (result.code === 0) resolve();
      else reject(result.error ?? new Error("the span exporter failed"));
    });
  });
}
