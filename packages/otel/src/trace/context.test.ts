// Trace context: a task started with a caller's traceparent is a child of the caller's span, in
// the caller's trace; a steer or decision with one links the span it lands in to the caller's; a
// child task's root is a child of its parent's delegating execute_tool span, in the parent's trace;
// and a running call's traceparent (callTraceparent) names its execute_tool span. Live equals
// rebuilt in each case, across a restart too.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import {
  cancel,
  decideApproval,
  defineTool,
  MemoryStore,
  runLeg,
  sendInput,
  startTask,
  type ToolContext,
} from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { spanIdOf, traceIdOf } from "../export/span-ids.ts";
import { callTraceparent } from "../export/trace-placement.ts";
import { shape } from "./test-support.ts";
import { traceEmit } from "./trace-emit.ts";
import { traceTask } from "./trace-task.ts";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const STEER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const STEER_SPAN = "b7ad6b7169203331";
const DECIDER_SPAN = "c7ad6b7169203331";

function clockedStore() {
  let now = Date.parse("2026-12-01T10:00:00.000Z");
  return new MemoryStore({ now: () => (now += 10) });
}

/** One model for parent and children: each task's script is chosen by its objective. */
function byObjective(scripts: Record<string, ScriptedTurn[]>): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: 20 }, () => (request: ModelRequest) => {
      const first = request.transcript[0];
      const objective = first?.role === "user" ? first.content : "";
      const turn = request.transcript.filter((e) => e.role === "assistant").length;
      return scripts[objective]?.[turn] ?? { text: `(no turn ${turn})` };
    }),
    { mode: "sequential", id: "script:team" },
  );
}

async function rebuilt(store: MemoryStore, taskId: string): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  await traceTask(store, taskId, { exporter, env: {} });
  return exporter.getFinishedSpans();
}

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe("a task started with a caller's traceparent", () => {
  it("is a child of the caller's span, every span in the caller's trace, live as rebuilt", async () => {
    const store = clockedStore();
    const taskId = await startTask(store, {
      objective: "Answer",
      agent: "helper",
      traceContext: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    const live = new InMemorySpanExporter();
    const tracer = traceEmit({ exporter: live, store, env: {} });
    await runLeg({ store, agent: { model: new ScriptedModel([{ text: "42" }]) }, emit: tracer.emit }, taskId);
    await tracer.flush();
    const spans = await rebuilt(store, taskId);
    expect(shape(live.getFinishedSpans())).toEqual(shape(spans));
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([CALLER_TRACE]));
    const [root] = named(spans, "invoke_agent helper");
    expect(root?.parentSpanContext).toMatchObject({ traceId: CALLER_TRACE, spanId: CALLER_SPAN, isRemote: true });
    // The span ids still follow from the task.
    expect(root?.spanContext().spanId).toBe(spanIdOf(taskId, "task"));
    expect(named(spans, "sema.leg")[0]?.parentSpanContext?.spanId).toBe(spanIdOf(taskId, "task"));
  });

  it("without one, the trace is the task's own, as before", async () => {
    const store = clockedStore();
    const taskId = await startTask(store, { objective: "Answer", agent: "helper" });
    await runLeg({ store, agent: { model: new ScriptedModel([{ text: "42" }]) } }, taskId);
    const spans = await rebuilt(store, taskId);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([traceIdOf(taskId)]));
    expect(named(spans, "invoke_agent helper")[0]?.parentSpanContext).toBeUndefined();
    expect(spans.flatMap((span) => span.links)).toEqual([]);
  });
});

describe("a steer and a decision with a caller's traceparent, across a restart", () => {
  it("link the span they land in to the caller's span, live (two processes) as rebuilt", async () => {
    const store = clockedStore();
    const write = defineTool({
      name: "write_file",
      description: "write a file",
      inputSchema: z.object({ path: z.string() }),
      needsApproval: () => true,
      execute: () => "wrote",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "write_file", input: { path: "a" } }] }, { text: "done" }], {
      mode: "by-transcript",
    });
    const agent = { model, tools: [write] };
    const taskId = await startTask(store, { objective: "Write it", agent: "writer", principal: "acme" });
    const exporters = [new InMemorySpanExporter(), new InMemorySpanExporter()];
    const first = traceEmit({ exporter: exporters[0] as InMemorySpanExporter, store, env: {} });
    await runLeg({ store, agent, emit: first.emit }, taskId);
    await first.flush();
    // The process stops; what follows is recorded while the task is parked, then another process runs it.
    const actor = { id: "ana", verified: true };
    await sendInput(store, taskId, {
      text: "Use the draft folder",
      actor,
      traceContext: { traceparent: `00-${STEER_TRACE}-${STEER_SPAN}-01` },
    });
    const request = (await store.read(taskId)).find((event) => event.type === "approval_requested");
    if (request?.type !== "approval_requested") throw new Error("no approval requested");
    await decideApproval(store, taskId, {
      callId: request.callId,
      digest: request.digest,
      decision: "approve",
      actor,
      principal: "acme",
      traceContext: { traceparent: `00-${STEER_TRACE}-${DECIDER_SPAN}-01` },
    });
    const second = traceEmit({ exporter: exporters[1] as InMemorySpanExporter, store, env: {} });
    expect((await runLeg({ store, agent, emit: second.emit }, taskId)).status).toBe("completed");
    await second.flush();
    const live = exporters.flatMap((exporter) => exporter.getFinishedSpans());
    const spans = await rebuilt(store, taskId);
    expect(shape(live)).toEqual(shape(spans));
    // Recorded while no leg ran: the links are on the task's span, beside their span events.
    const [root] = named(spans, "invoke_agent writer");
    expect(root?.links.map((link) => [link.context.traceId, link.context.spanId, link.attributes])).toEqual([
      [STEER_TRACE, STEER_SPAN, { "sema.link.event": "human_input", "sema.input.id": expect.any(String) }],
      [STEER_TRACE, DECIDER_SPAN, { "sema.link.event": "approval_decided", "gen_ai.tool.call.id": request.callId }],
    ]);
    expect(root?.links.every((link) => link.context.isRemote === true)).toBe(true);
    expect(spans.filter((span) => span !== root).flatMap((span) => span.links)).toEqual([]);
  });
});

describe("a parent with two children", () => {
  async function team(traced: boolean, inProcess = false) {
    const store = clockedStore();
    const live = new InMemorySpanExporter();
    const tracer = traced ? traceEmit({ exporter: live, store, env: {} }) : undefined;
    const model = byObjective({
      "Write the report": [
        {
          toolCalls: [
            { name: "delegate", input: { objective: "Find sources" } },
            { name: "delegate", input: { objective: "Find figures" } },
          ],
        },
        { text: "Report written." },
      ],
      "Find sources": [{ text: "Sources: A, B." }],
      "Find figures": [{ text: "Figures: 1, 2." }],
    });
    const taskId = await startTask(store, {
      objective: "Write the report",
      agent: "lead",
      traceContext: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    // The children are run as a worker runs them (a leg of each, traced by the same host); the
    // parent parks until they report, and its next leg answers the calls.
    // In process, the parent's leg runs its children, whose events reach the tracer by childEmit.
    const agent = { model, delegation: { runChildren: inProcess } };
    const harness = {
      store,
      agent,
      ...(tracer === undefined ? {} : inProcess ? tracer.harness : { emit: tracer.emit }),
    };
    const first = await runLeg(harness, taskId);
    expect(inProcess ? first.status : first.parkedReason).toBe(inProcess ? "completed" : "child");
    for (let round = 0; round < 5; round++) {
      const runnable = await store.listRunnable();
      if (runnable.length === 0) break;
      for (const record of runnable) await runLeg(harness, record.taskId);
    }
    expect((await store.getTask(taskId)).summary.status).toBe("completed");
    await tracer?.flush();
    const spawned = (await store.read(taskId)).flatMap((event) =>
      event.type === "child_task" && event.phase === "spawned" ? [event] : [],
    );
    const all = [taskId, ...spawned.map((event) => event.childTaskId)];
    const spans = (await Promise.all(all.map((id) => rebuilt(store, id)))).flat();
    return { taskId, spawned, live: live.getFinishedSpans(), spans };
  }

  function oneTree(taskId: string, spawned: Array<{ callId?: string; childTaskId: string }>, spans: ReadableSpan[]) {
    expect(spawned).toHaveLength(2);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([CALLER_TRACE]));
    const delegating = named(spans, "execute_tool delegate");
    expect(delegating).toHaveLength(2);
    for (const [i, event] of spawned.entries()) {
      const call = delegating.find((span) => span.attributes["gen_ai.tool.call.id"] === event.callId);
      expect(call?.spanContext().spanId).toBe(spanIdOf(taskId, `delegate:${event.callId}`));
      expect(call?.attributes["sema.child.task_id"]).toBe(event.childTaskId);
      expect(call?.attributes["sema.tool.status"]).toBe("ok");
      const root = spans.find(
        (span) =>
          span.attributes["gen_ai.conversation.id"] === event.childTaskId && span.name.startsWith("invoke_agent"),
      );
      expect(root?.parentSpanContext, `child ${i}`).toMatchObject({
        traceId: CALLER_TRACE,
        spanId: call?.spanContext().spanId,
      });
      // The call's span covers its child's run.
      const ns = (time: readonly [number, number] | undefined) =>
        time === undefined ? Number.NaN : time[0] * 1e9 + time[1];
      expect(ns(call?.startTime)).toBeLessThanOrEqual(ns(root?.startTime));
      expect(ns(call?.endTime)).toBeGreaterThanOrEqual(ns(root?.endTime));
    }
    // Every span's parent is a span of the tree, but the parent task's root, whose parent is the caller's.
    const ids = new Set(spans.map((span) => span.spanContext().spanId));
    const outside = spans.filter(
      (span) => span.parentSpanContext !== undefined && !ids.has(span.parentSpanContext.spanId),
    );
    expect(outside.map((span) => span.parentSpanContext?.spanId)).toEqual([CALLER_SPAN]);
  }

  it("is one trace: each child's root under its delegating execute_tool span, live as rebuilt", async () => {
    const { taskId, spawned, live, spans } = await team(true);
    expect(shape(live)).toEqual(shape(spans));
    oneTree(taskId, spawned, spans);
    // The delegating calls outlived the leg that made them: the parent parked while its children worked.
    const legs = named(spans, "sema.leg").filter((leg) => leg.attributes["sema.leg.end_reason"] === "parked:child");
    expect(legs).toHaveLength(1);
  });

  it("is the same live when the parent's leg runs its children, with the tracer as childEmit", async () => {
    const { taskId, spawned, live, spans } = await team(true, true);
    expect(shape(live)).toEqual(shape(spans));
    oneTree(taskId, spawned, spans);
  });

  it("is the same tree rebuilt when tracing was off while it ran (the log has every fact)", async () => {
    const { taskId, spawned, spans } = await team(false);
    oneTree(taskId, spawned, spans);
  });
});

describe("callTraceparent", () => {
  it("names the running call's execute_tool span, in the task's trace (a child's: the root's)", async () => {
    const store = clockedStore();
    const seen: Array<{ taskId: string; traceparent: string | undefined }> = [];
    const remote = defineTool({
      name: "ask_remote",
      description: "ask a remote agent",
      inputSchema: z.object({}),
      execute: (_input, ctx: ToolContext) => {
        seen.push({ taskId: ctx.taskId, traceparent: ctx.traceparent });
        return "answer";
      },
    });
    const model = byObjective({
      Lead: [{ toolCalls: [{ name: "delegate", input: { objective: "Ask" } }] }, { text: "done" }],
      Ask: [{ toolCalls: [{ name: "ask_remote", input: {} }] }, { text: "asked" }],
    });
    const taskId = await startTask(store, {
      objective: "Lead",
      traceContext: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    const agent = { model, tools: [remote], delegation: {} };
    await runLeg({ store, agent, traceparentOf: callTraceparent(store) }, taskId);
    const [call] = seen;
    expect(call?.taskId).not.toBe(taskId);
    const spans = await rebuilt(store, call?.taskId ?? "");
    const [span] = named(spans, "execute_tool ask_remote");
    expect(call?.traceparent).toBe(`00-${CALLER_TRACE}-${span?.spanContext().spanId}-01`);
  });
});

describe("TraceEmit.harness", () => {
  it("is the sink as emit and childEmit, and with a store the calls' traceparentOf", async () => {
    const store = clockedStore();
    const taskId = await startTask(store, { objective: "x" });
    const exporter = new InMemorySpanExporter();
    const withStore = traceEmit({ exporter, store, env: {} });
    expect(withStore.harness.emit).toBe(withStore.emit);
    expect(withStore.harness.childEmit).toBe(withStore.emit);
    const call = { taskId, callId: "c1", name: "ask", seq: 5 };
    expect(await withStore.harness.traceparentOf?.(call)).toBe(
      `00-${traceIdOf(taskId)}-${spanIdOf(taskId, "tool:5")}-01`,
    );
    expect(traceEmit({ exporter, env: {} }).harness.traceparentOf).toBeUndefined();
  });
});

describe("a parent cancelled while it waits for its child", () => {
  it("ends the delegating call with the task span, not left open", async () => {
    const store = clockedStore();
    const model = byObjective({
      Lead: [{ toolCalls: [{ name: "delegate", input: { objective: "Slow work" } }] }, { text: "done" }],
      "Slow work": [{ text: "finished" }],
    });
    const taskId = await startTask(store, { objective: "Lead", agent: "lead" });
    const agent = { model, delegation: { runChildren: false } };
    expect((await runLeg({ store, agent }, taskId)).parkedReason).toBe("child");
    await cancel(store, taskId, { reason: "no longer needed" });
    const spans = await rebuilt(store, taskId);
    const [call] = named(spans, "execute_tool delegate");
    const [root] = named(spans, "invoke_agent lead");
    expect(call?.attributes["sema.tool.interrupted"]).toBe(true);
    expect(call?.attributes["sema.span.open"]).toBeUndefined();
    expect(root?.attributes["sema.task.status"]).toBe("cancelled");
    expect(call?.endTime).toEqual(root?.endTime);
  });
});
