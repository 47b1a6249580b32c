/**
 * Issue 29, finding 9: tool names a model makes up must not become label values. One turn of a
 * ScriptedModel calling 20 made-up tools (and one real one) through the Prometheus text of
 * `metricsFromEnv`: the made-up names are one value, `_OTHER`; the agent's own tool keeps its name.
 */
import { type Agent, defineTool, MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { metricsFromEnv } from "./metrics-from-env.ts";
import { agentToolNames, OTHER_TOOL, toolLabeler } from "./tool-labels.ts";

const lookup = defineTool({
  name: "lookup",
  description: "look something up",
  inputSchema: z.object({ query: z.string() }),
  execute: () => "found",
});

const MADE_UP = Array.from({ length: 20 }, (_, i) => `made_up_tool_${i}`);

function agent(): Agent {
  const model = new ScriptedModel(
    [
      {
        toolCalls: [{ name: "lookup", input: { query: "x" } }, ...MADE_UP.map((name) => ({ name, input: {} }))],
      },
      { text: "done" },
    ],
    { mode: "by-transcript", id: "openai:gpt-test" },
  );
  return { model, tools: [lookup] };
}

/** The distinct `gen_ai_tool_name` values in the Prometheus text. */
function toolLabels(text: string): Set<string> {
  return new Set([...text.matchAll(/gen_ai_tool_name="([^"]*)"/g)].map((match) => match[1] ?? ""));
}

const shutdowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(shutdowns.splice(0).map((shutdown) => shutdown()));
});

async function oneTurn(options: { toolNames?: Iterable<string> }): Promise<string> {
  // The store's own clock: a stepping one would outrun the lease over 21 calls.
  const raw = new MemoryStore();
  const metrics = await metricsFromEnv({}, { store: raw, prometheus: true, ...options });
  if (metrics?.store === undefined || metrics.prometheus === undefined) throw new Error("no Prometheus metrics");
  shutdowns.push(() => metrics.shutdown());
  const taskAgent = agent();
  const taskId = await startTask(metrics.store, { objective: "go", agent: "a", model: "openai:gpt-test" });
  expect(await runLeg({ store: metrics.store, agent: taskAgent }, taskId)).toMatchObject({ status: "completed" });
  return metrics.prometheus();
}

describe("tool names as metric labels", () => {
  it("20 made-up tool names from one turn are one label value; the agent's tool keeps its own", async () => {
    const text = await oneTurn({ toolNames: agentToolNames([agent()]) });
    expect(toolLabels(text)).toEqual(new Set(["lookup", OTHER_TOOL]));
    expect(text).toMatch(
      /sema_tool_duration_count\{[^}]*gen_ai_tool_name="_OTHER"[^}]*sema_tool_status="error"[^}]*\} 20/,
    );
    for (const name of MADE_UP) expect(text).not.toContain(name);
  });

  it("without a list the labels stay bounded: the first names are kept, the rest fold", () => {
    const label = toolLabeler(undefined, 3);
    expect(["a", "b", "a", "c", "d", "e", "b"].map(label)).toEqual(["a", "b", "a", "c", "_OTHER", "_OTHER", "b"]);
  });

  it("an agent's tool names include its delegation tool and its sub-agents' tools", () => {
    const helper: Agent = { ...agent(), tools: [{ ...lookup, name: "search" }] };
    const parent: Agent = { ...agent(), delegation: { agents: { helper }, toolName: "ask" } };
    expect(agentToolNames([parent])).toEqual(new Set(["lookup", "ask", "search"]));
  });
});
