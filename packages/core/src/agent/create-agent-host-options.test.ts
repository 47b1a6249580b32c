/**
 * Every host option `createAgent`'s type accepts reaches the legs it runs, none lands in the
 * agent (where it was refused as an unknown key): `childEmit`, `quota` and `traceparentOf` were.
 */
import { describe, expect, it } from "vitest";
import type { ToolCallRef } from "../harness/agent.ts";
import type { QuotaGate } from "../harness/quota/quota-gate.ts";
import { defineTool, jsonSchema } from "../harness/tools/define-tool.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { createAgent } from "./create-agent.ts";

describe("createAgent: host options", () => {
  it("takes childEmit, quota and traceparentOf as host options and runs with them", async () => {
    const asked: string[] = [];
    const traced: ToolCallRef[] = [];
    const quota: QuotaGate = {
      check: async () => {
        asked.push("quota");
        return undefined;
      },
    };
    const lookup = defineTool({
      name: "lookup",
      description: "Look it up",
      inputSchema: jsonSchema<{ q: string }>({ type: "object", properties: { q: { type: "string" } } }),
      execute: ({ q }) => `found ${q}`,
    });
    const agent = createAgent({
      model: new ScriptedModel([{ toolCalls: [{ name: "lookup", input: { q: "x" } }] }, { text: "done" }]),
      tools: [lookup],
      childEmit: () => undefined,
      quota,
      traceparentOf: (call) => {
        traced.push(call);
        return undefined;
      },
    });
    expect(await agent.run("find x")).toMatchObject({ status: "completed", text: "done" });
    expect(traced.map((call) => call.name)).toEqual(["lookup"]);
    expect(asked.length).toBeGreaterThan(0);
  });
});
