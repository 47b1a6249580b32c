// OTEL_SEMCONV_STABILITY_OPT_IN: unset, the spans carry the latest GenAI conventions plus the
// deprecated gen_ai.system beside gen_ai.provider.name (what backends built on 1.36 read); with
// gen_ai_latest_experimental in the list, the latest only. The option wins over the variable.
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { GEN_AI } from "../attributes.ts";
import { runScriptedTask } from "./test-support.ts";
import { deprecatedAttributesFrom, type TraceOptions } from "./trace-options.ts";
import { traceTask } from "./trace-task.ts";

async function spansWith(options: Omit<TraceOptions, "exporter">): Promise<ReadableSpan[]> {
  const { store, taskId } = await runScriptedTask();
  const exporter = new InMemorySpanExporter();
  await traceTask(store, taskId, { exporter, ...options });
  return exporter.getFinishedSpans();
}

/** The spans that name a provider (the task's and each chat), with both attributes. */
const providers = (spans: ReadableSpan[]) =>
  spans
    .filter((span) => span.attributes[GEN_AI.providerName] !== undefined)
    .map((span) => [span.name, span.attributes[GEN_AI.providerName], span.attributes[GEN_AI.system]]);

describe("OTEL_SEMCONV_STABILITY_OPT_IN", () => {
  it("unset: gen_ai.system duplicates gen_ai.provider.name on every span that names one (the three chats)", async () => {
    const spans = providers(await spansWith({ env: {} }));
    expect(spans.length).toBe(3);
    for (const [name, provider, system] of spans) expect([name, system]).toEqual([name, provider]);
    expect(spans[0]?.[1]).toBe("script");
  });

  it("with gen_ai_latest_experimental in the list: the latest conventions only, no gen_ai.system", async () => {
    const env = { OTEL_SEMCONV_STABILITY_OPT_IN: "http, gen_ai_latest_experimental" };
    const spans = providers(await spansWith({ env }));
    expect(spans.length).toBe(3);
    for (const [name, , system] of spans) expect([name, system]).toEqual([name, undefined]);
  });

  it("the option wins over the variable, both ways", async () => {
    const latest = { OTEL_SEMCONV_STABILITY_OPT_IN: "gen_ai_latest_experimental" };
    expect(providers(await spansWith({ env: latest, deprecatedAttributes: true }))[0]?.[2]).toBe("script");
    expect(providers(await spansWith({ env: {}, deprecatedAttributes: false }))[0]?.[2]).toBeUndefined();
  });

  it("reads the list as the conventions write it: comma-separated, other categories ignored", () => {
    expect(deprecatedAttributesFrom({})).toBe(true);
    expect(deprecatedAttributesFrom({ OTEL_SEMCONV_STABILITY_OPT_IN: "" })).toBe(true);
    expect(deprecatedAttributesFrom({ OTEL_SEMCONV_STABILITY_OPT_IN: "http,database/dup" })).toBe(true);
    expect(deprecatedAttributesFrom({ OTEL_SEMCONV_STABILITY_OPT_IN: "http, GEN_AI_LATEST_EXPERIMENTAL" })).toBe(false);
  });
});

describe("the env option", () => {
  it("takes process.env itself (not a plain object)", async () => {
    const { store, taskId } = await runScriptedTask();
    const exporter = new InMemorySpanExporter();
    await traceTask(store, taskId, { exporter, env: process.env });
    expect(exporter.getFinishedSpans().length).toBeGreaterThan(0);
  });
});
