// A host that dies mid-call and a fresh one that recovers the task, each with its own metrics:
// the recovering host records the dead leg's end (parked:crash) and the call in doubt, the dead
// host the append that failed; each once, and nothing of what the other appended.

import { defineTool, MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { METRIC } from "./metric-names.ts";
import { countOf, pointsOf, type TestProcess, testProcess } from "./test-support.ts";

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

const open: TestProcess[] = [];
afterEach(async () => {
  for (const process of open.splice(0)) await process.close();
});

describe("the metrics of a crashed and recovered task", () => {
  it("count the lost leg and the call in doubt once, on the host that recovered it", async () => {
    let now = Date.parse("2026-11-30T10:00:00.000Z");
    const raw = new MemoryStore({ now: () => (now += 10) });
    const fetchTool = defineTool({
      name: "fetch_page",
      description: "fetch a page",
      inputSchema: z.object({ url: z.string() }),
      idempotent: true,
      execute: () => "page",
    });
    const model = new ScriptedModel(
      [{ toolCalls: [{ name: "fetch_page", input: { url: "https://a.example" } }] }, { text: "done" }],
      { mode: "by-transcript" },
    );
    const agent = { model, tools: [fetchTool] };
    let tick = 0;
    const [dying, recovering] = [testProcess(raw, () => (tick += 2)), testProcess(raw)];
    open.push(dying, recovering);
    const taskId = await startTask(dying.wrap(raw), { objective: "Fetch it", agent: "fetcher" });
    await expect(
      runLeg({ store: dying.wrap(diesBeforeToolResult(raw)), agent, holder: { id: "host-1" } }, taskId),
    ).rejects.toThrow();
    now += 120_000; // the dead host's lease expires
    const outcome = await runLeg({ store: recovering.wrap(raw), agent, holder: { id: "host-2" } }, taskId);
    expect(outcome.status).toBe("completed");

    const [first, second] = [await dying.collect(), await recovering.collect()];
    expect(countOf(first, METRIC.taskStarted)).toBe(1);
    expect(countOf(first, METRIC.legEnded)).toBe(0);
    // The append that died is timed, with its error's class (2 ms on the injected clock).
    expect(
      pointsOf(first, METRIC.storeAppend, { "error.type": "_OTHER" }).map((point) =>
        typeof point.value === "number" ? point.value : [point.value.count, point.value.sum],
      ),
    ).toEqual([[1, 0.002]]);

    expect(countOf(second, METRIC.taskStarted)).toBe(0);
    expect(
      pointsOf(second, METRIC.legEnded).map((point) => [point.attributes["sema.leg.end_reason"], point.value]),
    ).toEqual([
      ["parked:crash", 1],
      ["completed", 1],
    ]);
    expect(
      countOf(second, METRIC.toolDuration, { "gen_ai.tool.name": "fetch_page", "sema.tool.status": "in_doubt" }),
    ).toBe(1);
    expect(countOf(second, METRIC.toolDuration, { "gen_ai.tool.name": "fetch_page", "sema.tool.status": "ok" })).toBe(
      1,
    );
    expect(countOf(second, METRIC.taskEnded, { "sema.task.status": "completed" })).toBe(1);
    // The first turn was the dead host's, the second the recovering one's.
    expect([countOf(first, METRIC.operationDuration), countOf(second, METRIC.operationDuration)]).toEqual([1, 1]);
  });
});
