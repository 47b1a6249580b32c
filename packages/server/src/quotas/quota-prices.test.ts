/**
 * Issue 29, finding 11c: a dollar quota counts a call at its model's price, and an unpriced model
 * costs nothing, so `costUsdPerDay` over such a model never bound. `serve()` now refuses that
 * configuration with a `ConfigError` naming the model, before a port is bound; a price (0
 * included) makes it start, and the quota then binds.
 */
import { type Agent, isSemaError, MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { ConfigError } from "@sema-agent/core/protocol";
import { quotaGateFor } from "@sema-agent/core/quotas";
import { ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";

function agent(id: string): Agent {
  return { model: new ScriptedModel([{ text: "done", usage: { inputTokens: 1000, outputTokens: 1000 } }], { id }) };
}

async function refusal(options: Parameters<typeof serve>[0]): Promise<ConfigError> {
  try {
    const serving = await serve(options);
    await serving.close({ deadlineMs: 500 });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("serve started");
}

describe("a dollar quota over a model with no price", () => {
  it("is refused at serve() with a ConfigError naming the model and where it is used", async () => {
    const error = await refusal({
      store: new MemoryStore(),
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry(
        { local: agent("openai-compatible:llama3.2"), priced: agent("openai:gpt-5-mini") },
        "local",
      ),
      port: 0,
      workers: false,
      quotas: { default: { costUsdPerDay: 1 }, prices: { "gpt-5-mini": { input: 0.25, output: 2 } } },
    });
    expect(isSemaError(error) && error.code).toBe("ConfigError");
    expect(error.problems).toHaveLength(1);
    expect(error.message).toContain('"openai-compatible:llama3.2" (agents.local.model)');
    expect(error.message).toContain("quotas.default.costUsdPerDay");
    expect(error.message).toContain('prices["llama3.2"]');
  });

  it("is refused when only one principal's quotas, or a live token's, set dollars", async () => {
    const agents = createAgentRegistry({ local: agent("openai-compatible:llama3.2") });
    const byPrincipal = await refusal({
      store: new MemoryStore(),
      tokens: new MemoryTokenStore(),
      agents,
      port: 0,
      workers: false,
      quotas: { default: { tokensPerDay: 10_000 }, principals: { acme: { costUsdPerMonth: 5 } } },
    });
    expect(byPrincipal.message).toContain("quotas.principals.acme.costUsdPerMonth");
    const tokens = new MemoryTokenStore();
    const { record } = await tokens.create({ principal: "acme", quotas: { costUsdPerDay: 0.5 } });
    const byToken = await refusal({
      store: new MemoryStore(),
      tokens,
      agents,
      port: 0,
      workers: false,
      quotas: { default: { tokensPerDay: 10_000 } },
    });
    expect(byToken.message).toContain(`tokens.${record.tokenId}.quotas.costUsdPerDay`);
  });

  it("a sub-agent's model counts too; a price of 0 is a price; without dollar quotas nothing is asked", async () => {
    const parent: Agent = { ...agent("openai:gpt-5-mini"), delegation: { agents: { helper: agent("ollama:qwen3") } } };
    const error = await refusal({
      store: new MemoryStore(),
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry({ parent }),
      port: 0,
      workers: false,
      quotas: { default: { costUsdPerDay: 1 }, prices: { "gpt-5": { input: 1, output: 1 } } },
    });
    expect(error.message).toContain('"ollama:qwen3" (agents.parent.delegation.agents.helper.model)');
    for (const quotas of [
      { default: { costUsdPerDay: 1 }, prices: { "gpt-5": { input: 1, output: 1 }, qwen3: { input: 0, output: 0 } } },
      { default: { tokensPerDay: 10 } },
    ]) {
      const serving = await serve({
        protocols: allProtocols(),
        store: new MemoryStore(),
        tokens: new MemoryTokenStore(),
        agents: createAgentRegistry({ parent }),
        port: 0,
        workers: false,
        quotas,
      });
      await serving.close({ deadlineMs: 500 });
    }
  });

  it("priced, the quota binds: the task parks once the day's dollars are spent", async () => {
    const store = new MemoryStore();
    const local = agent("openai-compatible:llama3.2");
    const gate = quotaGateFor(store, {
      default: { costUsdPerDay: 0.001 },
      prices: { "llama3.2": { input: 1, output: 1 } },
    });
    if (gate === undefined) throw new Error("no gate");
    const first = await startTask(store, { objective: "one", principal: "acme" });
    expect(await runLeg({ store, agent: local, quota: gate }, first)).toMatchObject({ status: "completed" });
    const second = await startTask(store, { objective: "two", principal: "acme" });
    const outcome = await runLeg({ store, agent: agent("openai-compatible:llama3.2"), quota: gate }, second);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "quota" });
    expect((await store.getTask(second))?.summary).toMatchObject({ parkedDetail: "costUsdPerDay" });
  });
});
