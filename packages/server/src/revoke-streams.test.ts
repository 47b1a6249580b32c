/**
 * Revocation ends every long-lived delivery (issue 29, finding 6), over real sockets with each
 * protocol's official client: an AG-UI run (`@ag-ui/client`), an MCP `run_<agent>` waiting with
 * progress and one waiting on an elicitation (`@modelcontextprotocol/sdk`), an A2A stream
 * (`@a2a-js/sdk`), an AI SDK chat stream and a `/v1` event stream. A revocation made with `TokenStore.revoke` beside the server ends them before it
 * returns (the periodic re-check is set to an hour, so only that can end them); with a store that
 * cannot tell of its revocations, the re-check ends them. Nothing of the task arrives after.
 */
import { SendMessageRequest, type StreamResponse } from "@a2a-js/sdk";
import { type BaseEvent, HttpAgent, type Message } from "@ag-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ElicitRequestSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, MemoryStore } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MemoryTokenStore } from "./ingress/memory-token-store.ts";
import type { TokenStore } from "./ingress/token-store.ts";
import { type Serving, serve } from "./node/serve.ts";
import { a2aClient } from "./test-support/a2a-server.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { scriptedAgent, writeTool } from "./test-support/api-fixture.ts";
import { until } from "./test-support/until.ts";

/** The `hold` tool's calls wait for `release()`: a run that stays open as long as the test wants. */
let release: () => void = () => {};
let held = Promise.resolve();
const hold = defineTool({
  name: "hold",
  description: "Wait a while",
  inputSchema: z.object({}),
  readOnly: true,
  execute: async () => {
    await held;
    return "held";
  },
});
function holdNext(): void {
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
}

const holder = scriptedAgent(
  [{ toolCalls: [{ name: "hold", input: {}, callId: "call-hold" }] }, { text: "Done after the hold." }],
  "holder",
);
holder.tools = [hold];
const writer = scriptedAgent(
  [
    { toolCalls: [{ name: "write_note", input: { text: "secret plan" }, callId: "call-write" }] },
    { text: "Wrote it." },
  ],
  "writer",
);
writer.tools = [writeTool];

const HOUR = 3_600_000;
let store: MemoryStore;
let serving: Serving | undefined;
const clients: Client[] = [];

afterEach(async () => {
  release();
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await serving?.close({ deadlineMs: 1000 });
  serving = undefined;
});

async function start(tokens: TokenStore, sseRecheckMs: number): Promise<Serving> {
  store = new MemoryStore();
  holdNext();
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry({ holder, writer }, "holder"),
    port: 0,
    workers: { pollMs: 20 },
    limits: { sseRecheckMs },
  });
  return serving;
}

/** A store that cannot tell of its revocations (no `onRevoke`): only the re-check sees them. */
function silentStore(inner: MemoryTokenStore): TokenStore {
  return {
    create: (input) => inner.create(input),
    verify: (token) => inner.verify(token),
    revoke: (id) => inner.revoke(id),
    list: () => inner.list(),
    close: () => inner.close(),
  };
}

async function taskCompleted(taskId: string): Promise<void> {
  await until(async () => (await store.getTask(taskId)).summary.status === "completed", "the task to complete");
}

/** An AG-UI run of `holder` with `token`, revoked while its tool holds; what the client saw. */
async function agUiRunRevoked(tokens: MemoryTokenStore, token: string, tokenId: string, threadId: string) {
  const url = serving?.url ?? "";
  const http = new HttpAgent({
    url: `${url}/v1/agents/holder/ag-ui`,
    headers: { authorization: `Bearer ${token}` },
    threadId,
  });
  const events: BaseEvent[] = [];
  http.subscribe({ onEvent: ({ event }) => void events.push(event) });
  http.addMessage({ id: "m1", role: "user", content: "Hold on" } satisfies Message);
  // The client logs the failed run before it rethrows.
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  let settled = false;
  const run = http.runAgent().then(
    () => "finished",
    () => "failed",
  );
  void run.then(() => (settled = true));
  await until(() => events.some((event) => event.type === "TOOL_CALL_START"), "the run to reach the held tool");
  expect(await tokens.revoke(tokenId)).toBe(true);
  return { events, run, settled: () => settled, logged };
}

describe("revocation ends an AG-UI run", () => {
  it("at once when TokenStore.revoke runs beside the server, and nothing of the task follows", async () => {
    const tokens = new MemoryTokenStore();
    const alice = await tokens.create({ principal: "acme", actorId: "alice" });
    await start(tokens, HOUR);
    const { events, run, settled, logged } = await agUiRunRevoked(tokens, alice.token, alice.record.tokenId, "t-ag");
    await until(settled, "the run's stream to end");
    await run;
    logged.mockRestore();
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "TokenRevoked" });
    const seen = events.length;
    // The task goes on; its client hears nothing more of it.
    release();
    await taskCompleted("t-ag");
    expect(events.length).toBe(seen);
    expect(events.some((event) => event.type === "RUN_FINISHED")).toBe(false);
  });

  it("within the re-check when the store cannot tell of its revocations", async () => {
    const inner = new MemoryTokenStore();
    const alice = await inner.create({ principal: "acme", actorId: "alice" });
    await start(silentStore(inner), 50);
    const { events, settled, logged } = await agUiRunRevoked(inner, alice.token, alice.record.tokenId, "t-ag-poll");
    await until(settled, "the run's stream to end");
    logged.mockRestore();
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "TokenRevoked" });
    const seen = events.length;
    release();
    await taskCompleted("t-ag-poll");
    expect(events.length).toBe(seen);
  });
});

/** A connected MCP client with `token` (elicitation declared when `onElicit` is given). */
async function mcpClient(token: string, wire: JSONRPCMessage[], onElicit?: () => Promise<never>): Promise<Client> {
  const client = new Client(
    { name: "revoke-test", version: "1.0.0" },
    onElicit === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  if (onElicit !== undefined) client.setRequestHandler(ElicitRequestSchema, () => onElicit());
  const transport = new StreamableHTTPClientTransport(new URL(`${serving?.url ?? ""}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  // Every message the server sent, as the client's transport received it.
  const received = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    wire.push(message);
    received?.(message);
  };
  clients.push(client);
  return client;
}

function errorCode(result: unknown): string | undefined {
  const content = (result as CallToolResult).structuredContent as { error?: { code?: string } } | undefined;
  return content?.error?.code;
}

describe("revocation ends an MCP run_<agent> wait", () => {
  it("with progress: the call answers Unauthorized at once and no progress follows", async () => {
    const tokens = new MemoryTokenStore();
    const alice = await tokens.create({ principal: "acme", actorId: "alice" });
    await start(tokens, HOUR);
    const client = await mcpClient(alice.token, []);
    const progress: string[] = [];
    let answer: unknown;
    const call = client
      .callTool({ name: "run_holder", arguments: { objective: "Hold on" } }, undefined, {
        onprogress: (note) => progress.push(note.message ?? ""),
        timeout: HOUR,
      })
      .then((result) => (answer = result));
    await until(() => progress.includes("tool hold running"), "progress up to the held tool");
    expect(await tokens.revoke(alice.record.tokenId)).toBe(true);
    await until(() => answer !== undefined, "the waiting call to answer");
    await call;
    expect((answer as CallToolResult).isError).toBe(true);
    expect(errorCode(answer)).toBe("Unauthorized");
    expect(JSON.stringify(answer)).not.toContain("Done after the hold.");
    const seen = progress.length;
    const [task] = (await store.listTasks({ principal: "acme" })).tasks;
    release();
    await taskCompleted(task?.taskId ?? "");
    expect(progress.length).toBe(seen);
  });

  it("on an elicitation: the request is cancelled and the call answers Unauthorized", async () => {
    const tokens = new MemoryTokenStore();
    const bob = await tokens.create({ principal: "acme", actorId: "bob", roles: ["approver"] });
    await start(tokens, HOUR);
    const wire: JSONRPCMessage[] = [];
    let asked = 0;
    // The person never answers: only the revocation ends the wait.
    const client = await mcpClient(bob.token, wire, () => {
      asked += 1;
      return new Promise<never>(() => {});
    });
    let answer: unknown;
    const call = client
      .callTool({ name: "run_writer", arguments: { objective: "Write the plan" } }, undefined, { timeout: HOUR })
      .then((result) => (answer = result));
    await until(() => asked > 0, "the elicitation");
    const elicitation = wire.find((message) => "method" in message && message.method === "elicitation/create");
    const elicitationId = elicitation !== undefined && "id" in elicitation ? elicitation.id : undefined;
    expect(await tokens.revoke(bob.record.tokenId)).toBe(true);
    await until(() => answer !== undefined, "the waiting call to answer");
    await call;
    expect(errorCode(answer)).toBe("Unauthorized");
    // The server withdrew its question (the SDK client ignores a cancel of request id 0, so it
    // is read off the wire).
    expect(wire).toContainEqual(
      expect.objectContaining({
        method: "notifications/cancelled",
        params: expect.objectContaining({ requestId: elicitationId }),
      }),
    );
    expect(asked).toBe(1);
    // Nobody decided: the call still waits for an approver.
    const [task] = (await store.listTasks({ principal: "acme" })).tasks;
    expect(task?.summary.status).toBe("parked");
  });
});

describe("revocation ends a /v1 event stream", () => {
  it("at once when TokenStore.revoke runs beside the server", async () => {
    const tokens = new MemoryTokenStore();
    const alice = await tokens.create({ principal: "acme", actorId: "alice" });
    await start(tokens, HOUR);
    const created = await fetch(`${serving?.url}/v1/tasks`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({ objective: "Hold on", agent: "holder" }),
    });
    const { taskId } = (await created.json()) as { taskId: string };
    const response = await fetch(`${serving?.url}/v1/tasks/${taskId}/events`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: tool_call_started")) text += decoder.decode((await reader.read()).value);
    expect(await tokens.revoke(alice.record.tokenId)).toBe(true);
    let ended = false;
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      ended = true;
    })();
    await until(() => ended, "the stream to end");
    const frames = text.split("\n\n").filter((frame) => frame !== "");
    expect(frames.at(-1)).toMatch(/^event: token_revoked\n/);
    release();
    await taskCompleted(taskId);
    expect(text).not.toContain("task_completed");
  });
});

/** Read `body` to its end in the background; `ended()` says when it did. */
function drain(body: ReadableStream<Uint8Array> | null) {
  const reader = body?.getReader();
  if (reader === undefined) throw new Error("no body");
  const decoder = new TextDecoder();
  const state = { text: "", ended: false };
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      state.text += decoder.decode(value);
    }
    state.ended = true;
  })();
  return state;
}

describe("revocation ends an A2A stream and an AI SDK chat stream", () => {
  it("A2A: at once when TokenStore.revoke runs beside the server", async () => {
    const tokens = new MemoryTokenStore();
    const alice = await tokens.create({ principal: "acme", actorId: "alice" });
    await start(tokens, HOUR);
    const client = await a2aClient(serving?.url ?? "", alice.token, "JSONRPC");
    const stream = client.sendMessageStream(
      SendMessageRequest.fromJSON({ message: { messageId: "m-a2a", role: "ROLE_USER", parts: [{ text: "Hold on" }] } }),
    );
    const events: StreamResponse[] = [];
    let ended = false;
    void (async () => {
      for await (const event of stream) events.push(event);
      ended = true;
    })().catch(() => (ended = true));
    await until(() => events.length > 0, "the stream's first event");
    const taskId = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : "";
    await until(async () => (await store.getTask(taskId)).summary.status === "running", "the leg to run");
    expect(await tokens.revoke(alice.record.tokenId)).toBe(true);
    await until(() => ended, "the stream to end");
    const seen = events.length;
    release();
    await taskCompleted(taskId);
    expect(events.length).toBe(seen);
  });

  it("AI SDK chat: at once, ending with an error part", async () => {
    const tokens = new MemoryTokenStore();
    const alice = await tokens.create({ principal: "acme", actorId: "alice" });
    await start(tokens, HOUR);
    const response = await fetch(`${serving?.url}/v1/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "chat-revoke",
        trigger: "submit-message",
        messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Hold on" }] }],
      }),
    });
    const read = drain(response.body);
    await until(() => read.text.includes('"toolName":"hold"'), "the held tool call");
    expect(await tokens.revoke(alice.record.tokenId)).toBe(true);
    await until(() => read.ended, "the stream to end");
    expect(read.text).toContain("stream ended: token_revoked");
    const seen = read.text;
    release();
    await taskCompleted("chat-revoke");
    expect(read.text).toBe(seen);
    expect(seen).not.toContain("Done after the hold.");
  });
});
