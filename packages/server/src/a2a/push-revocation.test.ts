/**
 * A webhook stops with the token that registered it (issue 29, finding 6, push part), through the
 * official `@a2a-js/sdk` client on both transports: a config registered with a token that is then
 * revoked is dropped at the next state change, and nothing more reaches the 127.0.0.1 receiver;
 * a config of a live token keeps being delivered.
 */
import { type Task, TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterEach, describe, expect, it } from "vitest";
import { a2aClient, type Transport } from "../test-support/a2a-server.ts";
import { approvalDigest, pushMessage, pushWorld } from "../test-support/push-fixture.ts";
import { until } from "../test-support/until.ts";

const world = pushWorld();
afterEach(() => world.stop());

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
    const { server, receiver } = await world.start({ allowPrivateNetworks: true });
    const leaving = await server.tokens.create({ principal: "local", actorId: "leaving" });
    const staying = await server.tokens.create({ principal: "local", actorId: "staying", roles: ["approver"] });
    const leaver = await a2aClient(server.serving.url, leaving.token, transport);
    const stayer = await a2aClient(server.serving.url, staying.token, transport);
    const parked = (await leaver.sendMessage(pushMessage("Write"))) as Task;
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const hook = `http://127.0.0.1:${receiver.port}`;
    await register(leaver, parked.id, "revoked", `${hook}/revoked`);
    await register(stayer, parked.id, "live", `${hook}/live`);
    expect((await server.configs.get(parked.id, "revoked"))?.tokenId).toBe(leaving.record.tokenId);

    expect(await server.tokens.revoke(leaving.record.tokenId)).toBe(true);
    // The task moves on: two state changes, each owed to both webhooks.
    const done = (await stayer.sendMessage(
      pushMessage("", {
        taskId: parked.id,
        data: { callId: "call-w", decision: "approve", digest: approvalDigest(parked) },
      }),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await until(async () => ((await server?.configs.get(parked.id, "revoked")) === undefined ? true : undefined));
    const at = (path: string) => receiver?.received.filter((request) => request.path === path) ?? [];
    await until(() => (at("/live").length >= 2 ? true : undefined), "the live webhook's two states");
    expect(at("/revoked")).toEqual([]);
    expect(receiver.received).toHaveLength(at("/live").length);
  });
});
