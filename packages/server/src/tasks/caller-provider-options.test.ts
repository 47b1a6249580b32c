/**
 * Issue 29, finding 3: a caller's `settings.providerOptions` may not change the operator's model or
 * limits. `serve()` on a real socket, the real `openai-compatible:` provider of
 * `@sema-agent/ai-sdk` against a loopback server recording each request body: `model`, `n`,
 * `max_tokens`, `store`, `user` … from `POST /v1/tasks` are refused with a 400 naming the key and
 * nothing reaches the provider; a key the agent's `callerProviderOptions` lists passes; and a task
 * whose recorded options hold reserved keys (written in code, or before the fix) still sends the
 * agent's model, one completion and the agent's output limit.
 */
import { type Agent, MemoryStore, startTask, validateAgent } from "@sema-agent/core";
import { ConfigError } from "@sema-agent/core/protocol";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModel } from "../../../ai-sdk/src/resolve-model.ts";
import { type ReplayServer, sseEvents, startReplayServer } from "../../../ai-sdk/src/test-support/replay-server.ts";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { until } from "../test-support/until.ts";

let provider: ReplayServer;
let serving: Serving;
const store = new MemoryStore();
const tokens = new MemoryTokenStore();
let alice = "";

function agentOn(baseURL: string, extra: Partial<Agent> = {}): Agent {
  const model = resolveModel(
    "openai-compatible:llama3.2",
    { OPENAI_COMPATIBLE_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );
  return { model, maxOutputTokens: 256, ...extra };
}

beforeAll(async () => {
  provider = await startReplayServer();
  alice = (await tokens.create({ principal: "acme", actorId: "alice" })).token;
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry(
      {
        guarded: agentOn(provider.baseURL),
        tuned: agentOn(provider.baseURL, { callerProviderOptions: { "openai-compatible": ["reasoning_effort"] } }),
      },
      "guarded",
    ),
    port: 0,
    workers: { pollMs: 20 },
  });
});
afterAll(async () => {
  await serving.close({ deadlineMs: 1000 });
  await provider.close();
});

async function createTask(agent: string, providerOptions: Record<string, unknown>): Promise<Response> {
  return fetch(`${serving.url}/v1/tasks`, {
    method: "POST",
    headers: { authorization: `Bearer ${alice}`, "content-type": "application/json" },
    body: JSON.stringify({ objective: "Say hello", agent, settings: { providerOptions } }),
  });
}

/** The body of the provider request the task made, once it finished. */
async function providerBodyOf(taskId: string): Promise<Record<string, unknown>> {
  await until(async () => (await store.getTask(taskId))?.summary.status === "completed", `task ${taskId} to complete`);
  // Tests here run one at a time: the last request is this task's.
  const body = provider.requests.at(-1)?.body;
  if (body === undefined) throw new Error("the provider received no request");
  return JSON.parse(body) as Record<string, unknown>;
}

describe("provider options a caller sends (POST /v1/tasks)", () => {
  it.each([
    ["model", { model: "gpt-4-turbo-priced-elsewhere" }],
    ["n", { n: 50 }],
    ["max_tokens", { max_tokens: 100_000 }],
    ["max_completion_tokens", { max_completion_tokens: 100_000 }],
    ["maxOutputTokens", { maxOutputTokens: 100_000 }],
    ["stream_options", { stream_options: { include_usage: false } }],
    ["service_tier", { service_tier: "priority" }],
    ["store", { store: true }],
    ["user", { user: "someone-else" }],
    ["metadata", { metadata: { cost_center: "victim" } }],
  ])("refuses %s with a 400 naming the key, and nothing reaches the provider", async (key, options) => {
    const before = provider.requests.length;
    const response = await createTask("guarded", { "openai-compatible": options });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as {
      error: { code: string; message: string; details: { path: string } };
    };
    expect(error.code).toBe("InvalidInput");
    expect(error.details.path).toBe(`body.settings.providerOptions.openai-compatible.${key}`);
    expect(error.message).toContain(`body.settings.providerOptions.openai-compatible.${key}`);
    expect(provider.requests.length).toBe(before);
  });

  it("refuses a reserved key even on an agent that allows other keys, and a key it does not list", async () => {
    for (const options of [{ reasoning_effort: "low", n: 50 }, { temperature_boost: 2 }]) {
      const response = await createTask("tuned", { "openai-compatible": options });
      expect(response.status).toBe(400);
    }
    const otherProvider = await createTask("tuned", { openaiCompatible: { reasoning_effort: "low" } });
    expect(otherProvider.status).toBe(400);
    const { error } = (await otherProvider.json()) as { error: { message: string } };
    expect(error.message).toContain('allows no "openaiCompatible" option');
  });

  it("passes a key the agent allows; the model and the output limit stay the agent's", async () => {
    provider.reply({ events: sseEvents("openai-chat/text.sse") });
    const response = await createTask("tuned", { "openai-compatible": { reasoning_effort: "low" } });
    expect(response.status).toBe(201);
    const { taskId } = (await response.json()) as { taskId: string };
    const body = await providerBodyOf(taskId);
    expect(body).toMatchObject({ model: "llama3.2", max_tokens: 256, reasoning_effort: "low" });
    expect(body).not.toHaveProperty("n");
  });
});

describe("a task whose recorded provider options hold reserved keys", () => {
  it("still sends the agent's model, one completion and the agent's output limit", async () => {
    provider.reply({ events: sseEvents("openai-chat/text.sse") });
    // Written in code (no allowlist applies there), or recorded before the check existed.
    const taskId = await startTask(store, {
      objective: "Say hello",
      principal: "acme",
      agent: "guarded",
      providerOptions: {
        "openai-compatible": {
          model: "gpt-4-turbo-priced-elsewhere",
          n: 50,
          max_tokens: 100_000,
          maxCompletionTokens: 100_000,
          stream_options: { include_usage: false },
          reasoning_effort: "low",
        },
      },
    });
    serving.workers?.notify(taskId);
    const body = await providerBodyOf(taskId);
    expect(body).toMatchObject({
      model: "llama3.2",
      max_tokens: 256,
      stream_options: { include_usage: true },
      reasoning_effort: "low",
    });
    expect(body).not.toHaveProperty("n");
    expect(body).not.toHaveProperty("maxCompletionTokens");
  });
});

describe("the allowlist on the agent", () => {
  it("may not name a reserved key, nor may the agent's own providerOptions hold one", () => {
    const model = agentOn("http://127.0.0.1:1/v1").model;
    for (const agent of [
      { model, callerProviderOptions: { "openai-compatible": ["max_tokens"] } },
      { model, callerProviderOptions: { openai: ["Model"] } },
      { model, providerOptions: { "openai-compatible": { n: 2 } } },
    ]) {
      expect(() => validateAgent(agent, "test")).toThrow(ConfigError);
    }
    expect(() =>
      validateAgent({ model, callerProviderOptions: { "openai-compatible": ["max_tokens"] } }, "test"),
    ).toThrow(/agent\.callerProviderOptions\.openai-compatible\.0.*"max_tokens" is reserved/);
    expect(() =>
      validateAgent(
        { model, providerOptions: { openai: { store: false } }, callerProviderOptions: { openai: ["user"] } },
        "test",
      ),
    ).not.toThrow();
  });
});
