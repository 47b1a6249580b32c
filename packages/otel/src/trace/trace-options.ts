/**
 * What `traceTask` and `traceEmit` accept, checked where given (a strict zod object), and the
 * content-capture switch: off unless the option or the conventions' variable turns it on.
 */
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { checkConfig } from "@sema-agent/core/protocol";
import { z } from "zod";
import type { SpanFoldOptions } from "../spans/span-fold.ts";

/** The variable the GenAI instrumentations read to record message content (`true` turns it on). */
export const CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** The conventions' opt-in list (comma-separated); `gen_ai_latest_experimental` drops the deprecated names. */
export const SEMCONV_OPT_IN_ENV = "OTEL_SEMCONV_STABILITY_OPT_IN";

/** True unless `OTEL_SEMCONV_STABILITY_OPT_IN` lists `gen_ai_latest_experimental` (see `deprecatedAttributes`). */
export function deprecatedAttributesFrom(env: Readonly<Record<string, string | undefined>>): boolean {
  const list = (env[SEMCONV_OPT_IN_ENV] ?? "").split(",").map((item) => item.trim().toLowerCase());
  return !list.includes("gen_ai_latest_experimental");
}

/** Where the spans go and what they carry. */
export interface TraceOptions {
  /** The SDK exporter that receives the spans (`InMemorySpanExporter`, an OTLP exporter, …). */
  exporter: SpanExporter;
  /**
   * Record the task's texts: objective, inputs, model output, tool input and output
   * (`gen_ai.input.messages`, `gen_ai.output.messages`, …). Default: on only when
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true`.
   */
  captureContent?: boolean;
  /** `gen_ai.provider.name` when a model id does not name its provider (`openai:gpt-4o` does). */
  providerName?: string;
  /** `service.name` of the spans' resource. Default `OTEL_SERVICE_NAME`, else `sema`. */
  serviceName?: string;
  /** More attributes of the spans' resource (`deployment.environment.name`, …); `service.name` comes from `serviceName`. */
  resourceAttributes?: Readonly<Record<string, string>>;
  /**
   * Also write the deprecated duplicates older GenAI backends read (`gen_ai.system` beside
   * `gen_ai.provider.name`). Default: on, unless `OTEL_SEMCONV_STABILITY_OPT_IN` lists
   * `gen_ai_latest_experimental` (then the latest conventions only).
   */
  deprecatedAttributes?: boolean;
  /** The environment read for the defaults. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

const schema = z.strictObject({
  exporter: z.custom<SpanExporter>(
    (value) => typeof value === "object" && value !== null && typeof (value as SpanExporter).export === "function",
    { error: "must be a SpanExporter (an object with an export method)" },
  ),
  captureContent: z.boolean().optional(),
  providerName: z.string().min(1).optional(),
  serviceName: z.string().min(1).optional(),
  resourceAttributes: z.record(z.string().min(1), z.string()).optional(),
  deprecatedAttributes: z.boolean().optional(),
  // Not z.record: process.env is not a plain object, and it is what a host passes.
  env: z
    .custom<Readonly<Record<string, string | undefined>>>((value) => typeof value === "object" && value !== null, {
      error: "must be an object of variables, such as process.env",
    })
    .optional(),
});

/** The options resolved: the fold's, the exporter and the resource. */
export interface ResolvedTraceOptions {
  fold: SpanFoldOptions;
  exporter: SpanExporter;
  resource: Resource;
}

/** Checks `options` (a `ConfigError` naming each problem) and resolves the defaults. */
export function resolveTraceOptions(options: TraceOptions, where: string): ResolvedTraceOptions {
  checkConfig(schema, options, where);
  const env =
    options.env ?? (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
  const captureContent = options.captureContent ?? env[CAPTURE_CONTENT_ENV]?.toLowerCase() === "true";
  const deprecatedAttributes = options.deprecatedAttributes ?? deprecatedAttributesFrom(env);
  const fold: SpanFoldOptions = { captureContent, deprecatedAttributes };
  if (options.providerName !== undefined) fold.providerName = options.providerName;
  // OTEL_SERVICE_NAME wins over a service.name among the resource attributes, as specified.
  const serviceName =
    options.serviceName ??
    (env.OTEL_SERVICE_NAME || undefined) ??
    options.resourceAttributes?.["service.name"] ??
    "sema";
  return {
    fold,
    exporter: options.exporter,
    resource: resourceFromAttributes({ ...options.resourceAttributes, "service.name": serviceName }),
  };
}
