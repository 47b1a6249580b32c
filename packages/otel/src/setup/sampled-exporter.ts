/**
 * Sampling for spans built from a log. A task's spans are exported by whichever processes ran
 * it, days apart, and none of them sees the others' decisions: so the decision is the SDK
 * sampler's for the trace as a root span — a function of the trace id alone (the ratio samplers
 * read only its digits) — taken again for every span, and every process agrees on every span of a
 * task. The parent-based samplers use their root sampler: a caller's sampled flag is not read,
 * since only the task's root span would carry it.
 */
import { ROOT_CONTEXT, SpanKind } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import type { OtlpTraceConfig } from "./otlp-config.ts";

/** The SDK sampler `OTEL_TRACES_SAMPLER` (and its argument) name. */
export function samplerOf(config: OtlpTraceConfig["sampler"]): Sampler {
  switch (config.name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(config.ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
  }
}

/** Whether `sampler` keeps the trace `traceId` (asked as for the trace's root span). */
export function keepsTrace(sampler: Sampler, traceId: string): boolean {
  const result = sampler.shouldSample(ROOT_CONTEXT, traceId, "invoke_agent", SpanKind.INTERNAL, {}, []);
  return result.decision === SamplingDecision.RECORD_AND_SAMPLED;
}

/** An exporter that passes on only the spans of the traces `sampler` keeps. */
export class SampledExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #sampler: Sampler;

  constructor(inner: SpanExporter, sampler: Sampler) {
    this.#inner = inner;
    this.#sampler = sampler;
  }

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter["export"]>[1]): void {
    const kept = spans.filter((span) => keepsTrace(this.#sampler, span.spanContext().traceId));
    // ExportResultCode.SUCCESS is 0: nothing to send is a success.
    if (kept.length === 0) resultCallback({ code: 0 });
    else this.#inner.export(kept, resultCallback);
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}
