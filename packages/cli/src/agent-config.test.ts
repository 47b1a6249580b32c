import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import { isSemaError } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { loadAgents, withDefaultPrices } from "./agent-config.ts";

const dir = () => mkdtempSync(join(tmpdir(), "sema-config-"));
const noModel = () => {
  throw new Error("the default agent was not expected");
};

describe("sema.config", () => {
  it("reads agents from sema.config.json: model, instructions, tools, approvals, limits", async () => {
    const cwd = dir();
    const script = join(cwd, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "hi" }] }));
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({
        agents: {
          reader: {
            model: `script:${script}`,
            instructions: "Only read.",
            tools: ["read_file", "list_dir"],
            approve: [],
            maxTurns: 5,
            approvers: "any-verified-actor",
          },
          writer: { model: `script:${script}` },
        },
        defaultAgent: "reader",
      }),
    );
    const set = await loadAgents(cwd, {}, noModel);
    expect(set).toMatchObject({
      defaultAgent: "reader",
      source: "sema.config.json",
      approvers: { reader: "any-verified-actor" },
    });
    expect(set.approvers).not.toHaveProperty("writer");
    expect(set.agents.reader?.tools?.map((t) => t.name)).toEqual(["read_file", "list_dir"]);
    expect(set.agents.reader).toMatchObject({ instructions: "Only read.", budget: { maxTurns: 5 } });
    expect(set.agents.reader?.approvalPolicy).toBeUndefined();
    expect(set.agents.writer?.tools).toHaveLength(5);
    expect(
      await set.agents.writer?.approvalPolicy?.(
        { name: "write_file", input: {} },
        { taskId: "t", callId: "c", principal: "p" },
      ),
    ).toBe(true);
  });

  it("takes a provenance policy per agent in sema.config.json, checked as a ConfigError", async () => {
    const cwd = dir();
    const script = join(cwd, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "hi" }] }));
    const policy = { local: { exposed: "approve", tainted: "deny" }, minChars: 16 };
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({ agents: { a: { model: `script:${script}`, approve: [], provenancePolicy: policy } } }),
    );
    expect((await loadAgents(cwd, {}, noModel)).agents.a?.provenancePolicy).toEqual(policy);
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({ agents: { a: { model: `script:${script}`, provenancePolicy: { local: { tainted: "yes" } } } } }),
    );
    const error = await loadAgents(cwd, {}, noModel).catch((e: unknown) => e);
    expect(isSemaError(error, "ConfigError")).toBe(true);
  });

  it("reads agents defined in code from sema.config.mjs", async () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, "sema.config.mjs"),
      `const model = { id: "inline:echo", async *stream() { yield { type: "text-delta", id: "t", delta: "from code" }; yield { type: "finish", usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop" }; } };
       export default { agents: { coder: { model, instructions: "Code." } }, approvers: { coder: "any-verified-actor" } };`,
    );
    const set = await loadAgents(cwd, {}, noModel);
    expect(set).toMatchObject({
      defaultAgent: "coder",
      source: "sema.config.mjs",
      approvers: { coder: "any-verified-actor" },
    });
    expect(set.agents.coder?.model.id).toBe("inline:echo");
  });

  it("reads serve.traceContent from either config, and refuses one that is not a boolean", async () => {
    const json = dir();
    const script = join(json, "turns.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "hi" }] }));
    const agents = { a: { model: `script:${script}` } };
    writeFileSync(join(json, "sema.config.json"), JSON.stringify({ agents, serve: { traceContent: true } }));
    expect((await loadAgents(json, {}, noModel)).serve).toEqual({ traceContent: true });
    const code = dir();
    writeFileSync(
      join(code, "sema.config.mjs"),
      `export default { agents: { a: { model: { id: "inline:x", async *stream() {} } } }, serve: { traceContent: false } };`,
    );
    expect((await loadAgents(code, {}, noModel)).serve).toEqual({ traceContent: false });
    const none = dir();
    writeFileSync(join(none, "sema.config.json"), JSON.stringify({ agents }));
    expect((await loadAgents(none, {}, noModel)).serve).toBeUndefined();
    const bad = dir();
    writeFileSync(join(bad, "sema.config.json"), JSON.stringify({ agents, serve: { traceContent: "yes" } }));
    const error = await loadAgents(bad, {}, noModel).catch((caught: unknown) => caught);
    expect(isSemaError(error) && error.code === "ConfigError").toBe(true);
    expect(String(error)).toContain("serve.traceContent");
  });

  it("says clearly what is wrong with a config, and falls back to the default agent without one", async () => {
    const bad = dir();
    writeFileSync(join(bad, "sema.config.json"), JSON.stringify({ agents: { a: { model: "x:y", tools: ["rm_rf"] } } }));
    await expect(loadAgents(bad, {}, noModel)).rejects.toThrow(/sema.config.json: agents.a.tools.0/);
    const two = dir();
    writeFileSync(
      join(two, "sema.config.json"),
      JSON.stringify({ agents: { a: { model: "script:x" }, b: { model: "script:x" } } }),
    );
    await expect(loadAgents(two, {}, noModel)).rejects.toThrow(/say which agent is the default/);
    const none = dir();
    const script = join(none, "t.json");
    writeFileSync(script, JSON.stringify({ turns: [] }));
    expect(await loadAgents(none, {}, () => `script:${script}`)).toMatchObject({ defaultAgent: "default" });
  });

  it("refuses unknown keys by name and a missing model in sema.config.json, all at once, as a ConfigError", async () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({ agents: { a: { instrutions: "Be brief." } }, defaultAgnet: "a" }),
    );
    const error = await loadAgents(cwd, {}, noModel).catch((thrown) => thrown);
    expect(isSemaError(error, "ConfigError")).toBe(true);
    expect(error.message).toBe(
      'sema.config.json: agents.a.model is missing: set it to a model spec, e.g. "anthropic:claude-sonnet-4-5" or "openai:gpt-5-mini"; ' +
        'agents.a has unknown key "instrutions": remove it or fix the spelling; ' +
        'unknown key "defaultAgnet": remove it or fix the spelling',
    );
  });

  it("checks each agent of a code config: a missing model, a tool without execute, an unknown key", async () => {
    const noModelConfig = dir();
    writeFileSync(
      join(noModelConfig, "sema.config.mjs"),
      `export default { agents: { coder: { instructions: "Code." } } };`,
    );
    const error = await loadAgents(noModelConfig, {}, noModel).catch((thrown) => thrown);
    expect(isSemaError(error, "ConfigError")).toBe(true);
    expect(error.message).toBe(
      "sema.config.mjs: agents.coder.model is missing: pass a Model, e.g. fromAiSdk(...) of @sema-agent/ai-sdk",
    );
    const badTool = dir();
    writeFileSync(
      join(badTool, "sema.config.mjs"),
      `const model = { id: "inline:x", async *stream() {} };
       const tool = { name: "t", description: "", inputSchema: { "~standard": { version: 1, vendor: "x", validate: (v) => ({ value: v }) } }, jsonSchema: { type: "object" } };
       export default { agents: { coder: { model, tools: [tool], modle: 1 } }, defualtAgent: "coder" };`,
    );
    const second = await loadAgents(badTool, {}, noModel).catch((thrown) => thrown);
    expect(second.message).toBe('sema.config.mjs: unknown key "defualtAgent": remove it or fix the spelling');
    // A fresh directory: a module is imported once per path.
    const badAgent = dir();
    writeFileSync(
      join(badAgent, "sema.config.mjs"),
      `const model = { id: "inline:x", async *stream() {} };
       const tool = { name: "t", description: "", inputSchema: { "~standard": { version: 1, vendor: "x", validate: (v) => ({ value: v }) } }, jsonSchema: { type: "object" } };
       export default { agents: { coder: { model, tools: [tool], modle: 1 } } };`,
    );
    const third = await loadAgents(badAgent, {}, noModel).catch((thrown) => thrown);
    expect(third.message).toContain("sema.config.mjs: agents.coder.tools.0.execute is missing");
    expect(third.message).toContain('agents.coder has unknown key "modle"');
  });

  it("gives every loaded agent the vendors' list prices, so cost limits count as before core dropped them", async () => {
    const cwd = dir();
    const script = join(cwd, "t.json");
    writeFileSync(script, JSON.stringify({ turns: [] }));
    writeFileSync(
      join(cwd, "sema.config.json"),
      JSON.stringify({ agents: { a: { model: `script:${script}`, maxCostUsd: 2 } } }),
    );
    const json = await loadAgents(cwd, {}, noModel);
    expect(json.agents.a?.budget).toEqual({ maxCostUsd: 2, prices: DEFAULT_PRICES });
    const none = dir();
    writeFileSync(join(none, "t.json"), JSON.stringify({ turns: [] }));
    const fallback = await loadAgents(none, {}, () => `script:${join(none, "t.json")}`);
    expect(fallback.agents.default?.budget).toEqual({ prices: DEFAULT_PRICES });
    // A code config's own prices win; sub-agents are priced too, and an agent delegating to itself stays one.
    const model = new ScriptedModel([]);
    const own = { input: 1, output: 2 };
    const helper = { model };
    const lead: Parameters<typeof withDefaultPrices>[0] = { model, budget: { prices: { "gpt-5": own } } };
    lead.delegation = { agents: { helper, lead } };
    const priced = withDefaultPrices(lead);
    expect(priced.budget?.prices).toEqual({ ...DEFAULT_PRICES, "gpt-5": own });
    expect(priced.delegation?.agents?.helper?.budget?.prices).toEqual(DEFAULT_PRICES);
    expect(priced.delegation?.agents?.lead).toBe(priced);
    expect(lead.budget).toEqual({ prices: { "gpt-5": own } });
  });
});
