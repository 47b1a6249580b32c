/**
 * A webhook stops with the token that registered it (issue 29, finding 6, push part), through the
 * official `@a2a-js/sdk` client on both transports: a config registered with a token that is then
 * revoked is dropped at the next state change, and nothing more reaches the 127.0.0.1 receiver;
 * a config of a live token keeps being delivered.
 */
import { rmSync } from "node:fs";
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import type { Agent } from "@sema-agent/core";
import { ScriptedModel, type ScriptStep } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aClient, freshDir, type Transport } from "../test-support/a2a-server.ts";
import { writeTool } from "../test-support/api-fixture.ts";
import { type PushServer, type Receiver, startPushServer, startReceiver } from "../test-support/push-fixture.ts";
import { until } from "../test-support/until.ts";

let server: PushServer | undefined;
let receiver: Receiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.stop();
  await receiver?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  server = receiver = dir = undefined;
});

function agent(steps: ScriptStep[]): Agent {
  return { name: "default", model: new ScriptedModel(steps, { mode: "by-transcript" }), tools: [writeTool] };
}

function send(text: string, extra: { taskId?: string; data?: unknown } = {}) {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      parts: [...(text === "" ? [] : [{ text }]), ...(extra.data === undefined ? [] : [{ data: extra.data }])],
      ...(extra.taskId === undefined ? {} : { taskId: extra.taskId }),
    },
  });
}

function digestOf(task: Task): string {
  const data = task.status?.message?.parts.find((p) => p.content?.$case === "data")?.content?.value as
    | { digest?: string }
    | undefined;
  return data?.digest ?? "";
}

function register(client: Client, taskId: string, id: string, url: string) {
  return client.createTaskPushNotificationConfig({
    tenant: "",
    id,
    taskId,
    url,
    token: "k",
    authentication: undefined,
  });
}

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("push after revocation over %s", (transport) => {
  it("a revoked token's webhook is dropped and sent nothing more; a live token's still is", async () => {
    dir = freshDir();
    receiver = await startReceiver();
    server = await startPushServer(
      dir,
      {
        default: agent([
          { toolCalls: [{ name: "write_note", input: { text: "x" }, callId: "call-w" }] },
          { text: "Wrote it." },
        ]),
      },
      { allowPrivateNetworks: true },
    );
    const leaving = await server.tokens.create({ principal: "local", actorId: "leaving" });
    const staying = await server.tokens.create({ principal: "local", actorId: "staying", roles: ["approver"] });
    const leaver = await a2aClient(server.serving.url, leaving.token, transport);
    const stayer = await a2aClient(server.serving.url, staying.token, transport);
    const parked = (await leaver.sendMessage(send("Write"))) as Task;
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const hook = `http://127.0.0.1:${receiver.port}`;
    await register(leaver, parked.id, "revoked", `${hook}/revoked`);
    await register(stayer, parked.id, "live", `${hook}/live`);
    expect((await server.configs.get(parked.id, "revoked"))?.tokenId).toBe(leaving.record.tokenId);

    expect(await server.tokens.revoke(leaving.record.tokenId)).toBe(true);
    // The task moves on: two state changes, each owed to both webhooks.
    const done = (await stayer.sendMessage(
      send("", { taskId: parked.id, data: { callId: "call-w", decision: "approve", digest: digestOf(parked) } }),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await until(async () => ((await server?.configs.get(parked.id, "revoked")) === undefined ? true : undefined));
    const at = (path: string) => receiver?.received.filter((request) => request.path === path) ?? [];
    await until(() => (at("/live").length >= 2 ? true : undefined), "the live webhook's two states");
    expect(at("/revoked")).toEqual([]);
    expect(receiver.received).toHaveLength(at("/live").length);
  });
});
