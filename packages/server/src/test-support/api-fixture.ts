/**
 * A test API over a MemoryStore: two principals (`acme`, `globex`) with tokens of every shape the
 * tests need, a scripted default agent with one tool that needs approval, and a `call` helper.
 */
import { type Agent, MemoryStore, runLeg, type Store } from "@sema-agent/core";
import type { ScriptedModel, ScriptedTurn } from "@sema-agent/core/testing";
import { createAgentRegistry } from "@sema-agent/worker";
import type { Hono } from "hono";
import { scriptedAgent } from "../../../worker/src/test-support/scripted-agent.ts";
import { type AppOptions, createApp } from "../app.ts";
import type { AppEnv } from "../app-env.ts";
import { EventHub } from "../events/event-hub.ts";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { createTokenIngress } from "../ingress/token-ingress.ts";
import { allProtocols } from "./all-protocols.ts";

// One scripted agent for the worker's tests and the server's (the server depends on the worker).
export { scriptedAgent, writeTool } from "../../../worker/src/test-support/scripted-agent.ts";

export interface Tokens {
  /** acme's own token (actor alice), no roles. */
  alice: string;
  /** acme, actor bob, roles approver + supervisor. */
  bob: string;
  /** acme, actor frontend, approver role (relays speakers). */
  frontend: string;
  /** globex, actor mallory, every role. */
  mallory: string;
}

export interface ApiFixture {
  app: Hono<AppEnv>;
  store: Store;
  tokens: Tokens;
  tokenStore: MemoryTokenStore;
  hub: EventHub;
  agent: Agent & { model: ScriptedModel };
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** A raw body (string or bytes), sent as is. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export async function apiFixture(
  options: { turns?: ScriptedTurn[]; app?: Partial<AppOptions>; store?: Store } = {},
): Promise<ApiFixture> {
  const store = options.store ?? new MemoryStore();
  const tokenStore = new MemoryTokenStore();
  const tokens: Tokens = {
    alice: (await tokenStore.create({ principal: "acme", actorId: "alice" })).token,
    bob: (await tokenStore.create({ principal: "acme", actorId: "bob", roles: ["approver", "supervisor"] })).token,
    frontend: (await tokenStore.create({ principal: "acme", actorId: "frontend", roles: ["approver"] })).token,
    mallory: (await tokenStore.create({ principal: "globex", actorId: "mallory", roles: ["approver", "supervisor"] }))
      .token,
  };
  const agent = scriptedAgent(options.turns ?? [{ text: "done" }]);
  const hub = new EventHub();
  const app = createApp({
    store,
    agents: createAgentRegistry({ default: agent }),
    ingress: createTokenIngress(tokenStore),
    hub,
    // Every protocol unless the test says otherwise, as `sema serve` mounts them by default.
    protocols: allProtocols(),
    ...options.app,
  });
  const call = async (method: string, path: string, callOptions: CallOptions = {}) => {
    const headers: Record<string, string> = { ...callOptions.headers };
    const token = callOptions.token === undefined ? tokens.alice : callOptions.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | Uint8Array | undefined = callOptions.raw;
    if (callOptions.body !== undefined) {
      body = JSON.stringify(callOptions.body);
      headers["content-type"] ??= "application/json";
    }
    return app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
  };
  return { app, store, tokens, tokenStore, hub, agent, call };
}

/** Create a task as `token` and return its id. */
export async function createTask(fixture: ApiFixture, objective = "Do the thing", token?: string): Promise<string> {
  const response = await fixture.call("POST", "/v1/tasks", {
    body: { objective },
    ...(token === undefined ? {} : { token }),
  });
  if (response.status !== 201) throw new Error(`createTask: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { taskId: string }).taskId;
}

/** Run one leg in the test (no worker pool). */
export async function runOnce(fixture: ApiFixture, taskId: string) {
  return runLeg({ store: fixture.store, agent: fixture.agent, emit: fixture.hub.publish }, taskId);
}

/** A script whose first turn calls the approval-gated tool and whose second answers. */
export const APPROVAL_SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ name: "write_note", input: { text: "hello" }, callId: "call-1" }] },
  { text: "finished" },
];

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
