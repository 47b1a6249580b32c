// The live tracer and the rebuild from the log give the same trace of a scripted task (tools, a
// steer, an approval, a resume), following the GenAI conventions; content stays out by default.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { ConfigError } from "@sema-agent/core/protocol";
import { describe, expect, it } from "vitest";
import { spanIdOf, traceIdOf } from "../export/span-ids.ts";
import { runScriptedTask, shape, TEXTS } from "./test-support.ts";
import { type TraceEmit, traceEmit } from "./trace-emit.ts";
import { traceTask } from "./trace-task.ts";

async function liveAndRebuilt(captureContent = false) {
  const live = new InMemorySpanExporter();
  let tracer: TraceEmit | undefined;
  const { store, taskId } = await runScriptedTask((store) => {
    tracer ??= traceEmit({ exporter: live, store, captureContent, env: {} });
    return tracer.emit;
  });
  await tracer?.flush();
  // The task ended: the live tracer holds nothing for it any more.
  expect(tracer?.tasks).toBe(0);
  const rebuilt = new InMemorySpanExporter();
  await traceTask(store, taskId, { exporter: rebuilt, captureContent, env: {} });
  return { live: live.getFinishedSpans(), rebuilt: rebuilt.getFinishedSpans(), taskId, store };
}

const byName = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

/** Every string an exported span carries: attribute values and event attribute values. */
function strings(spans: readonly ReadableSpan[]): string[] {
  const out: string[] = [];
  const take = (value: unknown) => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) for (const item of value) take(item);
  };
  for (const span of spans) {
    out.push(span.name, span.status.message ?? "");
    for (const value of Object.values(span.attributes)) take(value);
    for (const event of span.events) {
      out.push(event.name);
      for (const value of Object.values(event.attributes ?? {})) take(value);
    }
  }
  return out;
}

describe("the trace of a task", () => {
  it("is the same live and rebuilt from the log: tree, names, attributes, events, ids and stored times", async () => {
    const { live, rebuilt } = await liveAndRebuilt();
    expect(rebuilt.length).toBeGreaterThan(0);
    expect(shape(live)).toEqual(shape(rebuilt));
  });

  it("is one trace when each leg is traced by another process: every span exported once, by one of them", async () => {
    const exporters = [new InMemorySpanExporter(), new InMemorySpanExporter()];
    const tracers: TraceEmit[] = [];
    const { store, taskId } = await runScriptedTask((store, leg) => {
      const tracer = traceEmit({ exporter: exporters[leg - 1] as InMemorySpanExporter, store, env: {} });
      tracers.push(tracer);
      return tracer.emit;
    });
    for (const tracer of tracers) await tracer.flush();
    const [first, second] = exporters.map((exporter) => exporter.getFinishedSpans());
    // The first process saw the first leg end; the second, which read the rest from the log, the task's.
    expect(first?.map((span) => span.name)).toContain("sema.leg");
    expect(first?.map((span) => span.name)).not.toContain("invoke_agent planner");
    expect(second?.map((span) => span.name)).toContain("invoke_agent planner");
    const rebuilt = new InMemorySpanExporter();
    await traceTask(store, taskId, { exporter: rebuilt, env: {} });
    expect(shape([...(first ?? []), ...(second ?? [])])).toEqual(shape(rebuilt.getFinishedSpans()));
  });

  it("follows the GenAI conventions: invoke_agent, legs, chat and execute_tool spans", async () => {
    const { rebuilt, taskId, store } = await liveAndRebuilt();
    const [root, ...others] = byName(rebuilt, "invoke_agent planner");
    expect(others).toEqual([]);
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.spanContext().traceId).toBe(traceIdOf(taskId));
    expect(root?.spanContext().spanId).toBe(spanIdOf(taskId, "task"));
    expect(root?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "planner",
      "gen_ai.conversation.id": taskId,
      "sema.task.status": "completed",
    });
    const legs = byName(rebuilt, "sema.leg");
    expect(legs.map((leg) => [leg.attributes["sema.leg.trigger"], leg.attributes["sema.leg.end_reason"]])).toEqual([
      ["start", "parked:approval"],
      ["resume", "completed"],
    ]);
    for (const leg of legs) expect(leg.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    const chats = byName(rebuilt, "chat planner");
    expect(chats).toHaveLength(3);
    expect(chats[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "script",
      "gen_ai.response.model": "planner",
      "gen_ai.response.finish_reasons": ["tool-calls"],
      "gen_ai.usage.input_tokens": expect.any(Number),
      "gen_ai.usage.output_tokens": expect.any(Number),
    });
    const [lookup] = byName(rebuilt, "execute_tool lookup");
    expect(lookup?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "call-1-1",
      "sema.tool.status": "ok",
    });
    const [write] = byName(rebuilt, "execute_tool write_file");
    // It ran in the second leg, with who approved it.
    expect(write?.parentSpanContext?.spanId).toBe(legs[1]?.spanContext().spanId);
    expect(write?.attributes).toMatchObject({ "sema.approval.decision": "approve", "sema.approval.actor.id": "bob" });
    // Every span's start and end are stored times of the log, and every parent is in the trace.
    const ats = new Set(
      (await store.read(rebuilt[0]?.attributes["gen_ai.conversation.id"] as string)).map((e) => Date.parse(e.at)),
    );
    const ids = new Set(rebuilt.map((span) => span.spanContext().spanId));
    for (const span of rebuilt) {
      expect(ats.has(span.startTime[0] * 1000 + span.startTime[1] / 1e6)).toBe(true);
      expect(ats.has(span.endTime[0] * 1000 + span.endTime[1] / 1e6)).toBe(true);
      if (span.parentSpanContext !== undefined) expect(ids.has(span.parentSpanContext.spanId)).toBe(true);
    }
  });

  it("records the steer, the approval and who decided as span events, never their text", async () => {
    const { rebuilt } = await liveAndRebuilt();
    const events = rebuilt.flatMap((span) => span.events.map((event) => ({ span: span.name, ...event })));
    const names = events.map((event) => event.name);
    expect(names).toContain("sema.approval.requested");
    expect(events.find((event) => event.name === "sema.approval.decided")?.attributes).toMatchObject({
      "sema.approval.decision": "approve",
      "sema.approval.actor.id": "bob",
      "sema.approval.actor.verified": true,
    });
    const steer = events.filter(
      (event) => event.name === "sema.human_input" && event.attributes?.["sema.input.carrier"] === "steer",
    );
    expect(steer.map((event) => event.attributes?.["sema.input.delivery"])).toEqual(["parked"]);
    expect(steer[0]?.attributes).toMatchObject({
      "sema.input.carrier": "steer",
      "sema.input.lane": "user",
      "sema.input.verified": true,
    });
  });

  it("with content capture off, no attribute or event carries any of the task's texts", async () => {
    const { live, rebuilt } = await liveAndRebuilt(false);
    const all = strings([...live, ...rebuilt]);
    for (const text of Object.values(TEXTS)) for (const value of all) expect(value).not.toContain(text);
    for (const fragment of ["Lisbon", "Alfama", "secret", "TAP flight"])
      for (const value of all) expect(value).not.toContain(fragment);
  });

  it("with content capture on, the texts are there in the conventions' attributes", async () => {
    const { live, rebuilt } = await liveAndRebuilt(true);
    expect(shape(live)).toEqual(shape(rebuilt));
    const all = strings(rebuilt).join("\n");
    for (const text of Object.values(TEXTS)) expect(all).toContain(text);
    const [root] = byName(rebuilt, "invoke_agent planner");
    expect(JSON.parse(String(root?.attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: TEXTS.objective }] },
    ]);
  });

  it("turns content capture on from the conventions' variable, and off is the default", async () => {
    const { store, taskId } = await runScriptedTask();
    const on = new InMemorySpanExporter();
    await traceTask(store, taskId, {
      exporter: on,
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" },
    });
    expect(strings(on.getFinishedSpans()).join("\n")).toContain(TEXTS.objective);
    const off = new InMemorySpanExporter();
    await traceTask(store, taskId, { exporter: off, env: {} });
    expect(strings(off.getFinishedSpans()).join("\n")).not.toContain(TEXTS.objective);
  });

  it("refuses options that are not a trace's, naming the problem", () => {
    expect(() => traceEmit({ exporter: {} as never })).toThrow(ConfigError);
    expect(() => traceEmit({ exporter: new InMemorySpanExporter(), captureContent: "yes" as never })).toThrow(
      /captureContent/,
    );
  });

  it("a failing exporter never reaches the leg; its error goes to onError", async () => {
    const errors: unknown[] = [];
    let tracer: TraceEmit | undefined;
    await runScriptedTask((store) => {
      tracer = traceEmit({
        store,
        env: {},
        exporter: {
          export: (_spans, done) => done({ code: 1, error: new Error("unreachable") }),
          shutdown: async () => {},
        },
        onError: (error) => errors.push(error),
      });
      return tracer.emit;
    });
    await tracer?.flush();
    expect(errors.length).toBeGreaterThan(0);
    expect(String(errors[0])).toContain("unreachable");
  });
});
