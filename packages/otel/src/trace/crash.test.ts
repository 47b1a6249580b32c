// A host that dies mid-call and a fresh one that recovers the task, each with its own live tracer:
// together they export the trace rebuilt from the log — the first leg ended as crashed (by the
// host that recovered it), its call in doubt, the re-run in the recovering leg — each span once.

import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { defineTool, MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { shape } from "./test-support.ts";
import { traceEmit } from "./trace-emit.ts";
import { traceTask } from "./trace-task.ts";

class HostDied extends Error {}

/** The store as the dying host sees it: it dies instead of appending a tool's result, and stays dead. */
function diesBeforeToolResult(inner: Store): Store {
  let dead = false;
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (key === "append" && (args[1] as Parameters<Store["append"]>[1]).some((e) => e.type === "tool_result"))
          dead = true;
        if (dead) return Promise.reject(new HostDied());
        return value.apply(target, args);
      };
    },
  });
}

describe("the trace of a crashed and recovered task", () => {
  it("shows the lost leg and the call in doubt, live across both hosts as rebuilt", async () => {
    let now = Date.parse("2026-11-30T10:00:00.000Z");
    const store = new MemoryStore({ now: () => (now += 10) });
    const fetchTool = defineTool({
      name: "fetch_page",
      description: "fetch a page",
      inputSchema: z.object({ url: z.string() }),
      idempotent: true,
      execute: () => "page",
    });
    const model = new ScriptedModel(
      [{ toolCalls: [{ name: "fetch_page", input: { url: "https://a.example" } }] }, { text: "done" }],
      {
        mode: "by-transcript",
      },
    );
    const agent = { model, tools: [fetchTool] };
    const taskId = await startTask(store, { objective: "Fetch it", agent: "fetcher" });
    const exporters = [new InMemorySpanExporter(), new InMemorySpanExporter()];
    const first = traceEmit({ exporter: exporters[0] as InMemorySpanExporter, store, env: {} });
    await expect(
      runLeg({ store: diesBeforeToolResult(store), agent, emit: first.emit, holder: { id: "host-1" } }, taskId),
    ).rejects.toThrow();
    now += 120_000; // the dead host's lease expires
    const second = traceEmit({ exporter: exporters[1] as InMemorySpanExporter, store, env: {} });
    const outcome = await runLeg({ store, agent, emit: second.emit, holder: { id: "host-2" } }, taskId);
    expect(outcome.status).toBe("completed");
    await first.flush();
    await second.flush();
    const live = exporters.flatMap((exporter) => exporter.getFinishedSpans());
    const rebuilt = new InMemorySpanExporter();
    await traceTask(store, taskId, { exporter: rebuilt, env: {} });
    expect(shape(live)).toEqual(shape(rebuilt.getFinishedSpans()));
    const legs = rebuilt.getFinishedSpans().filter((span) => span.name === "sema.leg");
    expect(legs.map((leg) => leg.attributes["sema.leg.end_reason"])).toEqual(["parked:crash", "completed"]);
    expect(legs.map((leg) => leg.attributes["sema.leg.holder.id"])).toEqual(["host-1", "host-2"]);
    const calls = rebuilt.getFinishedSpans().filter((span) => span.name === "execute_tool fetch_page");
    expect(calls.map((call) => call.attributes["sema.tool.in_doubt"] ?? false)).toEqual([true, false]);
    expect(calls[1]?.attributes["sema.tool.attempt"]).toBe(2);
  });
});
