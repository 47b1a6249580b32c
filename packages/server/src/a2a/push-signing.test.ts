/**
 * Push signing and config limits (issue 29, finding 8), through the official `@a2a-js/sdk`
 * client on both transports: a config without a token is not signed (no HMAC with an empty key);
 * the token, the signature's key, is never sent; a task takes at most 32 configs; an
 * `Authorization` scheme or credentials that could split a header are refused (400 on REST); and
 * a stored config that can never be sent is dropped, not retried forever.
 */
import { type Task, TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterEach, describe, expect, it } from "vitest";
import { a2aClient, type Transport } from "../test-support/a2a-server.ts";
import { approvalDigest, pushMessage, pushWorld } from "../test-support/push-fixture.ts";
import { until } from "../test-support/until.ts";
import { MAX_PUSH_CONFIGS_PER_TASK } from "./push-config-check.ts";
import { verifyPush } from "./push-dispatcher.ts";

const world = pushWorld();
afterEach(() => world.stop());

/** The receiver is on 127.0.0.1: this server's operator allows private networks. */
const start = () => world.start({ allowPrivateNetworks: true });

async function approve(client: Client, task: Task): Promise<Task> {
  return (await client.sendMessage(
    pushMessage("", { taskId: task.id, data: { callId: "call-w", decision: "approve", digest: approvalDigest(task) } }),
  )) as Task;
}

function register(
  client: Client,
  taskId: string,
  config: { id?: string; url: string; token?: string; authentication?: { scheme: string; credentials: string } },
) {
  return client.createTaskPushNotificationConfig({
    tenant: "",
    id: config.id ?? "",
    taskId,
    url: config.url,
    token: config.token ?? "",
    authentication: config.authentication,
  });
}

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("push signing over %s", (transport) => {
  it("signs with the token without sending it; a config without a token is not signed", async () => {
    const { server, receiver, admin } = await start();
    const client = await a2aClient(server.serving.url, admin, transport);
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    const hook = `http://127.0.0.1:${receiver.port}`;
    await register(client, parked.id, { id: "signed", url: `${hook}/signed`, token: "hook-secret" });
    await register(client, parked.id, { id: "plain", url: `${hook}/plain` });
    expect((await approve(client, parked)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await until(() => (receiver.received.length >= 4 ? true : undefined), "two states for each webhook");
    for (const request of receiver.received) {
      // The key is never on the wire.
      expect(request.headers["x-a2a-notification-token"]).toBeUndefined();
      expect(JSON.stringify(request.headers)).not.toContain("hook-secret");
    }
    const signed = receiver.received.filter((r) => r.headers["x-sema-signature"] !== undefined);
    const unsigned = receiver.received.filter((r) => r.headers["x-sema-signature"] === undefined);
    expect(signed.length).toBeGreaterThanOrEqual(2);
    expect(unsigned.length).toBe(receiver.received.length - signed.length);
    expect(unsigned.length).toBeGreaterThanOrEqual(2);
    for (const request of signed) {
      const header = String(request.headers["x-sema-signature"]);
      expect(verifyPush("hook-secret", header, request.body)).toBe(true);
      expect(verifyPush("hook-secret", header, `${request.body} `)).toBe(false);
      expect(verifyPush("other", header, request.body)).toBe(false);
      // An old signature is refused: a seen notification cannot be replayed later.
      const t = Number(/^t=(\d+),/.exec(header)?.[1]);
      expect(verifyPush("hook-secret", header, request.body, { now: t + 600_000 })).toBe(false);
    }
  });

  it(`takes at most ${MAX_PUSH_CONFIGS_PER_TASK} configs on a task; replacing one still works`, async () => {
    const { server, receiver, admin } = await start();
    const client = await a2aClient(server.serving.url, admin, transport);
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    for (let i = 0; i < MAX_PUSH_CONFIGS_PER_TASK; i++) await register(client, parked.id, { id: `c${i}`, url });
    await expect(register(client, parked.id, { id: "one-more", url })).rejects.toThrow(/the most it may have/);
    await expect(register(client, parked.id, { url })).rejects.toThrow(/the most it may have/);
    await register(client, parked.id, { id: "c0", url, token: "replaced" });
    expect(await server.configs.list(parked.id)).toHaveLength(MAX_PUSH_CONFIGS_PER_TASK);
  });

  it("refuses an Authorization scheme or credentials that could split or add a header", async () => {
    const { server, receiver, admin } = await start();
    const client = await a2aClient(server.serving.url, admin, transport);
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    for (const authentication of [
      { scheme: "Bearer\r\nX-Injected: 1", credentials: "x" },
      { scheme: "Bearer x", credentials: "y" },
      { scheme: "1Bearer", credentials: "y" },
      { scheme: "B".repeat(65), credentials: "y" },
      { scheme: "Bearer", credentials: "a\r\nX-Injected: 1" },
      { scheme: "Bearer", credentials: "a\nb" },
      { scheme: "Bearer", credentials: "a\u0000b" },
    ]) {
      await expect(
        register(client, parked.id, { url, authentication }),
        JSON.stringify(authentication),
      ).rejects.toThrow(/authentication/);
      await expect(
        client.sendMessage(
          pushMessage("Hello", { configuration: { taskPushNotificationConfig: { url, authentication } } }),
        ),
      ).rejects.toThrow(/authentication/);
    }
    expect(await server.configs.all()).toEqual([]);
    await register(client, parked.id, { url, authentication: { scheme: "Bearer", credentials: "abc.def-ghi~" } });
  });
});

describe("push config checks at the REST edge", () => {
  it("answers 400 for a bad scheme and for one config too many", async () => {
    const { server, receiver, admin } = await start();
    const client = await a2aClient(server.serving.url, admin, "HTTP+JSON");
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    const post = (body: unknown) =>
      fetch(`${server.serving.url}/a2a/v1/tasks/${parked.id}/pushNotificationConfigs`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    const crlf = await post({ url, authentication: { scheme: "Bearer\r\nX: 1", credentials: "x" } });
    expect(crlf.status).toBe(400);
    for (let i = 0; i < MAX_PUSH_CONFIGS_PER_TASK; i++) expect((await post({ id: `c${i}`, url })).status).toBe(200);
    const over = await post({ id: "over", url });
    expect(over.status).toBe(400);
    expect(await over.text()).toMatch(/the most it may have/);
  });
});

describe("a stored config that can never be sent", () => {
  it("is dropped at delivery instead of retried forever", async () => {
    const { server, receiver, admin } = await start();
    const client = await a2aClient(server.serving.url, admin, "JSONRPC");
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    await register(client, parked.id, { id: "old", url: `http://127.0.0.1:${receiver.port}/hook` });
    // A row written before schemes were checked.
    const stored = await server.configs.get(parked.id, "old");
    if (stored === undefined) throw new Error("the config was not stored");
    await server.configs.put({ ...stored, authentication: { scheme: "Bearer\r\nX-Injected: 1", credentials: "x" } });
    expect((await approve(client, parked)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await until(async () => ((await server.configs.list(parked.id)).length === 0 ? true : undefined), "the drop");
    expect(receiver.received).toEqual([]);
  });
});
