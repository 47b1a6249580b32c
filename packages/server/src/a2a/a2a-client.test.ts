/**
 * The A2A server against the official `@a2a-js/sdk` client (`ClientFactory`, over JSON-RPC and
 * over REST), on a real socket of `serve` with a SQLite file: the card, a streamed task, a steer
 * reaching the model with its label, an approval answered through a message, cancel, and
 * another principal seeing nothing. Each line of the mapping table in docs/guide/a2a.md is
 * checked here or in task-projection.test.ts.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SendMessageRequest, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { defineTool } from "@sema-agent/core";
import { ScriptedModel, type ScriptStep } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type A2AServer, a2aClient, freshDir, startA2AServer, type Transport } from "../test-support/a2a-server.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";
import { until } from "../test-support/until.ts";

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

let server: A2AServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function start(turns: ScriptStep[]) {
  dir = freshDir();
  const agent = { ...scriptedAgent([]), model: new ScriptedModel(turns, { mode: "by-transcript" }) };
  agent.tools = [lookup, ...(agent.tools ?? [])];
  server = await startA2AServer(join(dir, "sema.db"), { default: agent });
  const admin = server.serving.firstToken?.token ?? "";
  const dana = (await server.tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
  const erin = (await server.tokens.create({ principal: "local", actorId: "erin" })).token;
  const other = (await server.tokens.create({ principal: "globex", actorId: "mallory", roles: ["approver"] })).token;
  return { server, agent, admin, dana, erin, other };
}

/** A SendMessage request as it is written on the wire (the SDK decodes it). */
function send(
  text: string,
  extra: { taskId?: string; contextId?: string; data?: unknown; configuration?: unknown } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      parts: [...(text === "" ? [] : [{ text }]), ...(extra.data === undefined ? [] : [{ data: extra.data }])],
      ...(extra.taskId === undefined ? {} : { taskId: extra.taskId }),
      ...(extra.contextId === undefined ? {} : { contextId: extra.contextId }),
    },
    ...(extra.configuration === undefined ? {} : { configuration: extra.configuration }),
  });
}

function states(events: StreamResponse[]): TaskState[] {
  return events.flatMap((event) =>
    event.payload?.$case === "statusUpdate" ? [event.payload.value.status?.state ?? 0] : [],
  );
}

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("A2A over %s with the official client", (transport) => {
  it("serves the card and streams a task to completion; GetTask has artifacts and history", async () => {
    const { server, admin } = await start([{ text: "Hello from Sema." }]);
    const client = await a2aClient(server.serving.url, admin, transport);
    const card = await client.getAgentCard();
    expect(card.name).toBe("default");
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(Object.keys(card.securitySchemes)).toEqual(["bearer"]);
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ["JSONRPC", `${server.serving.url}/a2a`, "1.0"],
      ["HTTP+JSON", `${server.serving.url}/a2a/v1`, "1.0"],
    ]);
    expect(card.skills.map((s) => s.id)).toEqual(["default", "lookup", "write_note"]);

    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send("Say hello"))) events.push(event);
    expect(events[0]?.payload?.$case).toBe("task");
    const first = events[0]?.payload?.$case === "task" ? events[0].payload.value : undefined;
    expect(first?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(states(events)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const artifacts = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value.artifact] : []));
    expect(artifacts.map((a) => a?.parts[0]?.content)).toEqual([{ $case: "text", value: "Hello from Sema." }]);
    // Usage rides in metadata.
    const last = events.at(-1);
    expect(
      last?.payload?.$case === "statusUpdate" ? last.payload.value.metadata?.["sema/usage"] : undefined,
    ).toMatchObject({
      inputTokens: expect.any(Number),
    });

    const taskId = first?.id ?? "";
    const task = await client.getTask({ tenant: "", id: taskId, historyLength: 1 });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.contextId).toBe(first?.contextId);
    expect(task.artifacts).toHaveLength(1);
    expect(task.history).toHaveLength(1);
    const full = await client.getTask({ tenant: "", id: taskId });
    expect(full.history.length).toBe(2);
    expect((await client.getTask({ tenant: "", id: taskId, historyLength: 0 })).history).toEqual([]);
    // SendMessage blocks (A2A's default) until the task completes, and returns it.
    const blocking = await client.sendMessage(send("Say hello again"));
    expect("status" in blocking && blocking.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect("artifacts" in blocking && blocking.artifacts.length).toBe(1);
  });
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("A2A over %s: steer and approval", (transport) => {
  it("a message to a working task is a steer on the user lane, labelled for the model; tool calls are DataParts", async () => {
    // The first turn answers once the steer is recorded: the steer lands while the task works.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { server, agent, admin, dana } = await start([
      async () => {
        await gate;
        return {
          text: "Looking around first.",
          toolCalls: [{ name: "lookup", input: { q: "style" }, callId: "call-look" }],
        };
      },
      { text: "All done." },
    ]);
    const client = await a2aClient(server.serving.url, admin, transport);
    const steerer = await a2aClient(server.serving.url, dana, transport);
    const stream = client.sendMessageStream(send("Tidy the notes"));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === "task" ? first.value.payload.value.id : "";
    const steered = await steerer.sendMessage(
      send("Use tabs, not spaces", { taskId, configuration: { returnImmediately: true } }),
    );
    expect("id" in steered && steered.id).toBe(taskId);
    release();
    const events: StreamResponse[] = [];
    for await (const event of stream) events.push(event);
    expect(states(events).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const data = events.flatMap((e) =>
      e.payload?.$case === "statusUpdate" && e.payload.value.status?.message?.parts[0]?.content?.$case === "data"
        ? [e.payload.value.status.message.parts[0].content.value as Record<string, unknown>]
        : [],
    );
    expect(data).toEqual([
      { kind: "tool_call", callId: "call-look", toolName: "lookup", attempt: 1, input: { q: "style" } },
      { kind: "tool_result", callId: "call-look", toolName: "lookup", status: "ok", content: "found style" },
    ]);
    const log = await server.store.read(taskId);
    expect(log.find((e) => e.type === "human_input" && e.carrier === "steer")).toMatchObject({
      source: "user",
      actor: { id: "dana", verified: true, issuer: "sema-token" },
    });
    expect(JSON.stringify(agent.model.requests)).toContain('[from \\"dana\\"]\\nUse tabs, not spaces');
    // The steer is in the task's history, attributed.
    const task = await client.getTask({ tenant: "", id: taskId });
    expect(task.history.find((m) => m.metadata?.["sema/actor"] === "dana")?.parts[0]?.content).toEqual({
      $case: "text",
      value: "Use tabs, not spaces",
    });
  });

  it("a parked approval is input-required with its DataPart; a message answers it, checked as /v1 checks it", async () => {
    const { server, admin, dana, erin } = await start([
      { toolCalls: [{ name: "write_note", input: { text: "indent with tabs" }, callId: "call-write" }] },
      { text: "Wrote it." },
    ]);
    const client = await a2aClient(server.serving.url, dana, transport);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send("Write a note"))) events.push(event);
    const last = events.at(-1);
    const parked = last?.payload?.$case === "statusUpdate" ? last.payload.value : undefined;
    expect(parked?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const approval = parked?.status?.message?.parts.find((p) => p.content?.$case === "data")?.content?.value as {
      callId: string;
      toolName: string;
      input: unknown;
      digest: string;
    };
    expect(approval).toMatchObject({
      callId: "call-write",
      toolName: "write_note",
      input: { text: "indent with tabs" },
    });
    expect(approval.digest).toMatch(/^[0-9a-f]{64}$/);
    const taskId = parked?.taskId ?? "";
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const stored = (await server.store.read(taskId)).length;
    const answer = (digest: string) =>
      send("", { taskId, data: { callId: "call-write", decision: "approve", digest } });
    await expect(client.sendMessage(answer("0".repeat(64)))).rejects.toThrow(/digest/i);
    // A verified actor of the principal without the approver role may not decide it.
    const erinClient = await a2aClient(server.serving.url, erin, transport);
    await expect(erinClient.sendMessage(answer(approval.digest))).rejects.toThrow(/may not decide/);
    // Another principal does not see the task at all.
    const outsider = await a2aClient(
      server.serving.url,
      (await server.tokens.create({ principal: "globex", actorId: "m", roles: ["approver"] })).token,
      transport,
    );
    await expect(outsider.sendMessage(answer(approval.digest))).rejects.toBeInstanceOf(TaskNotFoundError);
    expect((await server.store.read(taskId)).length).toBe(stored);

    const after: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(answer(approval.digest))) after.push(event);
    expect(after[0]?.payload?.$case).toBe("task");
    expect(states(after).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const log = await server.store.read(taskId);
    expect(log.filter((e) => e.type === "tool_result" && e.callId === "call-write")).toMatchObject([{ status: "ok" }]);
    expect(log.find((e) => e.type === "approval_decided")).toMatchObject({
      decision: "approve",
      actor: { id: "dana", verified: true },
    });
    void admin;
  });
});

describe("A2A tasks: cancel, contexts, isolation (JSON-RPC and REST)", () => {
  it.each<Transport>(["JSONRPC", "HTTP+JSON"])("over %s", async (transport) => {
    const { server, admin, other } = await start([{ text: "slow answer", delayMs: 60_000 }]);
    const client = await a2aClient(server.serving.url, admin, transport);
    const outsider = await a2aClient(server.serving.url, other, transport);
    const created = await client.sendMessage(send("Think long", { configuration: { returnImmediately: true } }));
    const task = "id" in created ? created : undefined;
    const taskId = task?.id ?? "";
    await until(async () =>
      (await server.store.read(taskId)).some((e) => e.type === "leg_started") ? true : undefined,
    );

    // Another principal's task is an unknown id, whatever the method.
    await expect(outsider.getTask({ tenant: "", id: taskId })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(outsider.getTask({ tenant: "", id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(outsider.cancelTask({ tenant: "", id: taskId, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    const theirs = await outsider.listTasks({
      tenant: "",
      contextId: "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: "",
      statusTimestampAfter: undefined,
    });
    expect(theirs.tasks).toEqual([]);

    const cancelled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: "", id: taskId, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    // A follow-up after the end is a new task in the same context.
    await expect(client.sendMessage(send("More", { taskId }))).rejects.toThrow(/ended/);
    const followUp = await client.sendMessage(
      send("And then?", { contextId: task?.contextId ?? "", configuration: { returnImmediately: true } }),
    );
    expect("id" in followUp && followUp.id).not.toBe(taskId);
    expect("contextId" in followUp && followUp.contextId).toBe(task?.contextId);
    const mine = await client.listTasks({
      tenant: "",
      contextId: task?.contextId ?? "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: "",
      pageSize: 1,
      statusTimestampAfter: undefined,
    });
    expect(mine.tasks).toHaveLength(1);
    expect(mine.nextPageToken).not.toBe("");
    const next = await client.listTasks({
      tenant: "",
      contextId: task?.contextId ?? "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: mine.nextPageToken,
      pageSize: 1,
      statusTimestampAfter: undefined,
    });
    expect([...mine.tasks, ...next.tasks].map((t) => t.id).sort()).toEqual(
      [taskId, "id" in followUp ? followUp.id : ""].sort(),
    );
    await client.cancelTask({ tenant: "", id: "id" in followUp ? followUp.id : "", metadata: undefined });
  });
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("a named agent over %s", (transport) => {
  it("has its own card and endpoints at /a2a/agents/{name}, and runs its tasks", async () => {
    dir = freshDir();
    server = await startA2AServer(join(dir, "sema.db"), {
      default: scriptedAgent([{ text: "from default" }]),
      helper: scriptedAgent([{ text: "from helper" }], "helper"),
    });
    const admin = server.serving.firstToken?.token ?? "";
    const base = `${server.serving.url}/a2a/agents/helper`;
    // The SDK resolves the card path against the base URL: a trailing slash keeps the agent's segment.
    const client = await a2aClient(`${base}/`, admin, transport);
    const card = await client.getAgentCard();
    expect(card.name).toBe("helper");
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([base, `${base}/v1`]);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send("Help"))) events.push(event);
    const text = events.flatMap((e) =>
      e.payload?.$case === "artifactUpdate" ? [e.payload.value.artifact?.parts[0]?.content] : [],
    );
    expect(text).toEqual([{ $case: "text", value: "from helper" }]);
    const taskId = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : "";
    expect((await client.getTask({ tenant: "", id: taskId })).metadata?.["sema/agent"]).toBe("helper");
    expect((await fetch(`${server.serving.url}/a2a/agents/nobody/.well-known/agent-card.json`)).status).toBe(404);
  });
});

describe("A2A streams and tokens", () => {
  it.each<Transport>(["JSONRPC", "HTTP+JSON"])("a stream over %s ends once its token is revoked", async (transport) => {
    const { server } = await start([{ text: "never", delayMs: 60_000 }]);
    const temporary = await server.tokens.create({ principal: "local", actorId: "temp" });
    const client = await a2aClient(server.serving.url, temporary.token, transport);
    const stream = client.sendMessageStream(send("Wait for ever"));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe("task");
    await server.tokens.revoke(temporary.record.tokenId);
    const rest: StreamResponse[] = [];
    const ended = (async () => {
      for await (const event of stream) rest.push(event);
      return "ended";
    })();
    expect(await Promise.race([ended, until(() => undefined, 5_000).catch(() => "still open")])).toBe("ended");
    // The task itself is untouched: still running for the principal's other tokens.
    expect(states(rest)).not.toContain(TaskState.TASK_STATE_CANCELED);
    await expect(client.getTask({ tenant: "", id: "x" })).rejects.toThrow();
  });
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("A2A file parts over %s", (transport) => {
  it("an image part (raw bytes) is an image input: stored as a blob, sent to the model", async () => {
    const { server, agent, admin } = await start([{ text: "A red dot." }]);
    const client = await a2aClient(server.serving.url, admin, transport);
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: "m-image",
        role: "ROLE_USER",
        parts: [
          { text: "What is this?" },
          { raw: png.toString("base64"), mediaType: "image/png", filename: "dot.png" },
        ],
      },
    });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(request)) events.push(event);
    expect(states(events).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : "";
    const input = (await server.store.read(taskId)).find((e) => e.type === "human_input");
    expect(input?.type === "human_input" ? input.attachments : undefined).toMatchObject([{ mediaType: "image/png" }]);
    expect(JSON.stringify(agent.model.requests[0])).toContain("image/png");
    // A file part without a media type is refused by name, and nothing is stored.
    const before = (await server.store.listTasks({ principal: "local" })).tasks.length;
    await expect(
      client.sendMessage(
        SendMessageRequest.fromJSON({ message: { messageId: "m2", role: "ROLE_USER", parts: [{ raw: "AAAA" }] } }),
      ),
    ).rejects.toThrow(/mediaType/);
    expect((await server.store.listTasks({ principal: "local" })).tasks.length).toBe(before);
  });
});
