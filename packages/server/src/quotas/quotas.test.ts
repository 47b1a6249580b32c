import { restStatusFor, toJsonRpcError } from "@a2a-js/sdk/errors";
import { MemoryStore, runLeg } from "@sema-agent/core";
import { QuotaExceededError } from "@sema-agent/core/protocol";
import { type QuotaTokenSource, quotaGateFor, quotasOf } from "@sema-agent/core/quotas";
import { describe, expect, it } from "vitest";
import { toA2AError } from "../a2a/errors.ts";
import { toolError } from "../mcp/tool-result.ts";
import { apiFixture, createTask, json } from "../test-support/api-fixture.ts";

const T0 = Date.parse("2026-12-10T12:30:00.000Z");

describe("quota settings", () => {
  it("a principal's own entry replaces the default whole", () => {
    const settings = {
      default: { tokensPerDay: 10, concurrentTasks: 2 },
      principals: { vip: {}, acme: { concurrentTasks: 5 } },
    };
    expect(quotasOf(settings, "someone")).toEqual({ tokensPerDay: 10, concurrentTasks: 2 });
    expect(quotasOf(settings, "acme")).toEqual({ concurrentTasks: 5 });
    expect(quotasOf(settings, "vip")).toEqual({});
    expect(quotasOf(settings, "constructor")).toEqual(settings.default);
    expect(quotasOf(undefined, "acme")).toBeUndefined();
  });
});

describe("concurrentTasks over the HTTP API", () => {
  it("refuses a creation past the principal's limit with 429 QuotaExceeded; others and later ones pass", async () => {
    const fx = await apiFixture({ app: { quotas: { default: { concurrentTasks: 1 } } } });
    const first = await createTask(fx);
    const refused = await fx.call("POST", "/v1/tasks", { body: { objective: "again" } });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({
      error: { code: "QuotaExceeded", details: { principal: "acme", quota: "concurrentTasks", used: 1, limit: 1 } },
    });
    // globex has its own count.
    await createTask(fx, "x", fx.tokens.mallory);
    // Once acme's task has ended, the slot is free again.
    await runLeg({ store: fx.store, agent: fx.agent }, first);
    await createTask(fx);
  });
});

describe("GET /v1/usage", () => {
  it("reports the caller's own principal only: its windows, active tasks and quotas", async () => {
    let now = T0;
    const store = new MemoryStore({ now: () => now });
    const quotas = { default: { tokensPerDay: 1_000_000 }, prices: { inline: { input: 1, output: 2 } } };
    const fx = await apiFixture({
      store,
      turns: [{ text: "done", usage: { inputTokens: 1000, outputTokens: 500 } }],
      app: { quotas, clock: () => now },
    });
    const taskId = await createTask(fx);
    await runLeg({ store, agent: fx.agent }, taskId);
    await createTask(fx, "still waiting");
    const acme = await json(await fx.call("GET", "/v1/usage"));
    expect(acme).toEqual({
      principal: "acme",
      at: "2026-12-10T12:30:00.000Z",
      day: { since: "2026-12-09T13:00:00.000Z", tokens: 1500, costUsd: 0.002 },
      month: { since: "2026-12-01T00:00:00.000Z", tokens: 1500, costUsd: 0.002 },
      activeTasks: 1,
      quotas: { tokensPerDay: 1_000_000 },
    });
    const globex = await json(await fx.call("GET", "/v1/usage", { token: fx.tokens.mallory }));
    expect(globex).toMatchObject({ principal: "globex", day: { tokens: 0 }, activeTasks: 0 });
    // A day later the turn has left the rolling day but not the month.
    now = T0 + 24 * 3_600_000;
    expect(await json(await fx.call("GET", "/v1/usage"))).toMatchObject({
      day: { tokens: 0 },
      month: { tokens: 1500 },
    });
    expect((await fx.call("GET", "/v1/usage", { token: null })).status).toBe(401);
  });
});

describe("QuotaExceeded at the other protocol edges", () => {
  const error = new QuotaExceededError("acme", "concurrentTasks", 3, 3);

  it("A2A: 429 on the REST binding; UnsupportedOperation with the quota in its metadata on JSON-RPC", () => {
    const a2a = toA2AError(error);
    expect(restStatusFor(a2a)).toBe(429);
    expect(toJsonRpcError(a2a)).toMatchObject({ code: -32004, message: error.message });
  });

  it("MCP: a tool error with the code, and the HTTP status it has on /v1", () => {
    expect(toolError(error)).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "QuotaExceeded" }, httpStatus: 429 },
    });
  });
});

describe("quotaGateFor", () => {
  it("is undefined without settings, and prices the dollar quotas by the settings' table", async () => {
    const store = new MemoryStore({ now: () => T0 });
    expect(quotaGateFor(store, undefined)).toBeUndefined();
    const gate = quotaGateFor(store, { default: { costUsdPerDay: 0.001 }, prices: { m: { input: 1000, output: 0 } } });
    expect(await gate?.check({ principal: "p", taskId: "t", modelId: "m", inputTokens: 10 })).toMatchObject({
      quota: "costUsdPerDay",
    });
    expect(await gate?.check({ principal: "p", taskId: "t", modelId: "free", inputTokens: 10 })).toBeUndefined();
  });
});

describe("quotas on token records", () => {
  it("a token's quotas narrow its principal's: the tightest of the settings' and its live tokens' applies", async () => {
    // The fixture makes its token store; the app reads it through this, once it exists.
    let source: QuotaTokenSource | undefined;
    const fx = await apiFixture({
      app: {
        quotas: { default: { concurrentTasks: 5, tokensPerDay: 1000 } },
        quotaTokens: { list: async () => (await source?.list()) ?? [] },
      },
    });
    source = fx.tokenStore;
    const tight = await fx.tokenStore.create({ principal: "acme", actorId: "carol", quotas: { concurrentTasks: 1 } });
    const call = (method: string, path: string, body?: unknown) =>
      fx.app.request(path, {
        method,
        headers: { authorization: `Bearer ${tight.token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect(((await json(await call("GET", "/v1/usage"))) as { quotas: unknown }).quotas).toEqual({
      concurrentTasks: 1,
      tokensPerDay: 1000,
    });
    expect((await call("POST", "/v1/tasks", { objective: "one" })).status).toBe(201);
    expect((await call("POST", "/v1/tasks", { objective: "two" })).status).toBe(429);
  });
});
