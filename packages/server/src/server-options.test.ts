import { type Agent, MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import type { AgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { type AppOptions, createApp } from "./app.ts";
import { createAgentRegistry } from "./index.ts";
import { MemoryTokenStore } from "./ingress/memory-token-store.ts";
import { createTokenIngress } from "./ingress/token-ingress.ts";
import { type ServeOptions, serve } from "./node/serve.ts";
import { configErrorOf } from "./test-support/config-error.ts";

const agents = () => createAgentRegistry({ assistant: { model: new ScriptedModel([{ text: "hi" }]) } });

describe("the server's options are checked where they are given", () => {
  it("createApp refuses unknown keys by name, in its limits too", async () => {
    const tokens = new MemoryTokenStore();
    const base = { store: new MemoryStore(), agents: agents(), ingress: createTokenIngress(tokens) };
    expect(await configErrorOf(() => createApp({ ...base, limit: {} } as AppOptions))).toBe(
      'createApp: unknown key "limit" (did you mean "limits"?): remove it or fix the spelling',
    );
    expect(await configErrorOf(() => createApp({ ...base, limits: { maxBody: 1 } } as AppOptions))).toBe(
      'createApp: limits has unknown key "maxBody": remove it or fix the spelling',
    );
    expect(await configErrorOf(() => createApp({ ...base, store: undefined } as unknown as AppOptions))).toContain(
      "createApp: store is missing: pass a Store",
    );
    expect(createApp(base)).toBeDefined();
  });

  it("checks the import's body limit and the replays' where they are given", async () => {
    const base = { store: new MemoryStore(), agents: agents(), ingress: createTokenIngress(new MemoryTokenStore()) };
    for (const limits of [
      { maxImportBodyBytes: 0 },
      { maxImportBodyBytes: 1.5 },
      { maxConcurrentReplays: -1 },
      { maxTaskListStreams: 0 },
      { maxTaskListStreams: 2.5 },
    ])
      expect(await configErrorOf(() => createApp({ ...base, limits } as AppOptions)), JSON.stringify(limits)).toMatch(
        /^createApp: limits\.(maxImportBodyBytes|maxConcurrentReplays|maxTaskListStreams)/,
      );
    expect(
      await configErrorOf(() =>
        createApp({ ...base, limits: { maxImportBodyBytes: "32MiB" } } as unknown as AppOptions),
      ),
    ).toMatch(/^createApp: limits\.maxImportBodyBytes/);
    expect(
      createApp({ ...base, limits: { maxImportBodyBytes: 64 * 1024 * 1024, maxConcurrentReplays: 4 } }),
    ).toBeDefined();
  });

  it("checks the dataset body limit and the experiments' concurrency where they are given", async () => {
    const base = { store: new MemoryStore(), agents: agents(), ingress: createTokenIngress(new MemoryTokenStore()) };
    for (const limits of [
      { maxDatasetBodyBytes: 0 },
      { maxDatasetBodyBytes: 1.5 },
      { maxDatasetBodyBytes: "8MiB" },
      { maxExperimentConcurrency: 0 },
      { maxExperimentConcurrency: 257 },
      { maxExperimentConcurrency: 2.5 },
    ])
      expect(
        await configErrorOf(() => createApp({ ...base, limits } as unknown as AppOptions)),
        JSON.stringify(limits),
      ).toMatch(/^createApp: limits\.(maxDatasetBodyBytes|maxExperimentConcurrency)/);
    expect(
      await configErrorOf(() => createApp({ ...base, evals: { harness: { quota: {} } } } as unknown as AppOptions)),
    ).toMatch(/^createApp: evals\.harness\.quota/);
    expect(
      createApp({
        ...base,
        limits: { maxDatasetBodyBytes: 1024, maxExperimentConcurrency: 256 },
        evals: { harness: { holder: { id: "node-1" } }, shutdown: new AbortController().signal },
      }),
    ).toBeDefined();
  });

  it("createApp checks each agent a hand-written registry holds", async () => {
    const registry: AgentRegistry = {
      defaultName: "broken",
      get: () => ({}) as Agent,
      names: () => ["broken"],
    };
    const options = { store: new MemoryStore(), agents: registry, ingress: createTokenIngress(new MemoryTokenStore()) };
    expect(await configErrorOf(() => createApp(options))).toBe(
      "createApp: agents.broken.model is missing: pass a Model, e.g. fromAiSdk(...) of @sema-agent/ai-sdk",
    );
  });

  it("createAgentRegistry refuses an agent without a model by its name", async () => {
    expect(await configErrorOf(() => createAgentRegistry({ helper: { instructions: "help" } as Agent }))).toBe(
      "createAgentRegistry: agents.helper.model is missing: pass a Model, e.g. fromAiSdk(...) of @sema-agent/ai-sdk",
    );
  });

  it("serve refuses a wrong option before a token is created or a port bound", async () => {
    const tokens = new MemoryTokenStore();
    const options = {
      store: new MemoryStore(),
      tokens,
      agents: agents(),
      port: 0,
      workers: { concurency: 2 },
    } as unknown as ServeOptions;
    expect(await configErrorOf(() => serve(options))).toBe(
      'serve: workers has unknown key "concurency" (did you mean "concurrency"?): remove it or fix the spelling',
    );
    expect(await configErrorOf(() => serve({ ...options, workers: false, port: 70_000 }))).toContain("serve: port");
    expect(await tokens.list()).toEqual([]);
  });
});
