/**
 * An MCP test server: `serve` on a real socket over a MemoryStore, with the fixture's tokens
 * (acme: alice, bob the approver; globex: mallory) and an agent the test scripts, plus the SDK's
 * own `Client` over Streamable HTTP for any of those tokens.
 */
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { type Agent, MemoryStore } from "@sema-agent/core";
import { ScriptedModel, type ScriptStep } from "@sema-agent/core/testing";
import { createAgentRegistry } from "@sema-agent/worker";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { writeTool } from "../test-support/api-fixture.ts";

export interface McpFixture {
  store: MemoryStore;
  serving: Serving;
  url: string;
  tokens: { alice: string; bob: string; mallory: string };
  tokenStore: MemoryTokenStore;
  model: ScriptedModel;
  /** A connected SDK client speaking with `token`; closed by `close`. */
  client(token: string, options?: ClientOptions, setup?: (client: Client) => void): Promise<Client>;
  close(): Promise<void>;
}

export async function mcpFixture(steps: ScriptStep[]): Promise<McpFixture> {
  const store = new MemoryStore();
  const tokenStore = new MemoryTokenStore();
  const tokens = {
    alice: (await tokenStore.create({ principal: "acme", actorId: "alice" })).token,
    bob: (await tokenStore.create({ principal: "acme", actorId: "bob", roles: ["approver", "supervisor"] })).token,
    mallory: (await tokenStore.create({ principal: "globex", actorId: "mallory", roles: ["approver"] })).token,
  };
  const model = new ScriptedModel(steps, { mode: "by-transcript" });
  const agent: Agent = { name: "default", model, tools: [writeTool] };
  const serving = await serve({
    protocols: allProtocols(),
    store,
    tokens: tokenStore,
    agents: createAgentRegistry({ default: agent }),
    port: 0,
    workers: { concurrency: 2, pollMs: 20 },
  });
  const clients: Client[] = [];
  return {
    store,
    serving,
    url: serving.url,
    tokens,
    tokenStore,
    model,
    async client(token, options = {}, setup) {
      const client = new Client({ name: "sema-test", version: "1.0.0" }, options);
      setup?.(client);
      const transport = new StreamableHTTPClientTransport(new URL(`${serving.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await serving.close({ deadlineMs: 1000 });
    },
  };
}

/** The structured content of a tool result, typed for the test. */
export function data<T = Record<string, unknown>>(result: unknown): T {
  return (result as CallToolResult).structuredContent as T;
}

/** The JSON of a resource read's first content. */
export function resourceJson<T>(result: ReadResourceResult): T {
  const [first] = result.contents;
  return JSON.parse(first !== undefined && "text" in first ? first.text : "null") as T;
}

/** The text of a tool result. */
export function text(result: unknown): string {
  const [first] = (result as CallToolResult).content;
  return first?.type === "text" ? first.text : "";
}
