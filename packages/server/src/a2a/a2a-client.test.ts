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
import { defineTool, type StoredEvent } from "@sema-agent/core";
import type { ScriptedTurn } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type A2AServer,
  a2aClient,
  freshDir,
  startA2AServer,
  type Transport,
  until,
} from "../test-support/a2a-server.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

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

async function start(turns: ScriptedTurn[]) {
  dir = freshDir();
  const agent = scriptedAgent(turns);
  agent.tools = [lookup, ...(agent.tools ?? [])];
  server = await startA2AServer(join(dir, "sema.db"), { default: agent });
  const admin = server.serving.firstToken?.token ?? "";
  const dana = (await server.tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
  const erin = (await server.tokens.create({ principal: "local", actorId: "erin" })).token;
  const other = (await server.tokens.create({ principal: "globex", actorId: "mallory", roles: ["approver"] })).token;
  return { server, agent, admin, dana, erin, other };
}

/** A SendMessage request as it is written on the wire (the SDK decodes it). */
export function send(text: string, extra: { taskId?: string; contextId?: string; data?: unknown } = {}) {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      parts: [...(text === "" ? [] : [{ text }]), ...(extra.data === undefined ? [] : [{ data: extra.data }])],
      ...(extra.taskId === undefined ? {} : { taskId: extra.taskId }),
      ...(extra.contextId === undefined ? {} : { contextId: extra.contextId }),
    },
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
  });
});
