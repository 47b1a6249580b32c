/**
 * Push webhooks cannot reach this machine (issue 29, finding 1), through the official
 * `@a2a-js/sdk` client on both transports: the mapped spellings of loopback and of the metadata
 * address are refused at registration and in a first message (no task made, nothing POSTed to the
 * 127.0.0.1 receiver); a name that answers a public address at registration and 127.0.0.1 at
 * delivery (DNS rebinding) never reaches the receiver; and the POST goes to the address that was
 * checked, not to a second lookup. No test resolves a real name: the resolver is injected.
 */
import { type Task, TaskState } from "@a2a-js/sdk";
import type { ScriptStep } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aClient, type Transport } from "../test-support/a2a-server.ts";
import { approvalDigest, pushMessage, pushWorld, startReceiver } from "../test-support/push-fixture.ts";
import { until } from "../test-support/until.ts";
import { sendPinned } from "./push-send.ts";
import type { PushResolver, PushUrlPolicy } from "./push-url.ts";

const world = pushWorld();
afterEach(() => world.stop());

const start = (urls: PushUrlPolicy, steps?: ScriptStep[]) => world.start(urls, steps);

const SPELLINGS = ["[::ffff:7f00:1]", "[::ffff:127.0.0.1]", "[::ffff:0.0.0.0]", "[::ffff:a9fe:a9fe]", "[::127.0.0.1]"];

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("push webhooks over %s", (transport) => {
  it("refuses the mapped spellings of loopback and metadata, at registration and in a first message", async () => {
    // Only literal addresses here: the default policy (nothing resolved).
    const { server, receiver, admin } = await start({});
    const client = await a2aClient(server.serving.url, admin, transport);
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    for (const host of SPELLINGS) {
      const url = `http://${host}:${receiver.port}/hook`;
      await expect(
        client.createTaskPushNotificationConfig({
          tenant: "",
          id: "",
          taskId: parked.id,
          url,
          token: "k",
          authentication: undefined,
        }),
        url,
      ).rejects.toThrow(/non-public/);
      const before = (await server.store.listTasks({ principal: "local", limit: 100 })).tasks.length;
      await expect(
        client.sendMessage(
          pushMessage("Hello", { configuration: { taskPushNotificationConfig: { url, token: "k" } } }),
        ),
        url,
      ).rejects.toThrow(/non-public/);
      // Refused before it acted: no task was made.
      expect((await server.store.listTasks({ principal: "local", limit: 100 })).tasks).toHaveLength(before);
    }
    expect(await server.configs.all()).toEqual([]);
    // The task moves on (states a registered webhook would be sent): nothing reaches the receiver.
    const done = (await client.sendMessage(
      pushMessage("", {
        taskId: parked.id,
        data: { callId: "call-w", decision: "approve", digest: approvalDigest(parked) },
      }),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(receiver.received).toEqual([]);
  });

  it("a name that rebinds to 127.0.0.1 after registration never reaches the receiver", async () => {
    let answer = "93.184.215.14";
    const asked: string[] = [];
    const resolve: PushResolver = async (host) => {
      asked.push(host);
      return [{ address: answer, family: 4 }];
    };
    const { server, receiver, admin } = await start({ resolve });
    const client = await a2aClient(server.serving.url, admin, transport);
    const parked = (await client.sendMessage(pushMessage("Write"))) as Task;
    const url = `http://hooks.rebind.test:${receiver.port}/hook`;
    await client.createTaskPushNotificationConfig({
      tenant: "",
      id: "rebinding",
      taskId: parked.id,
      url,
      token: "k",
      authentication: undefined,
    });
    expect(asked).toEqual(["hooks.rebind.test"]);
    answer = "127.0.0.1";
    const done = (await client.sendMessage(
      pushMessage("", {
        taskId: parked.id,
        data: { callId: "call-w", decision: "approve", digest: approvalDigest(parked) },
      }),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // At delivery the name now answers loopback: the config is dropped, never sent.
    await until(async () => ((await server.configs.list(parked.id)).length === 0 ? true : undefined), "the drop");
    expect(asked.length).toBeGreaterThan(1);
    expect(receiver.received).toEqual([]);
  });
});

describe("the webhook POST", () => {
  it("connects to the checked address, never resolving the name again; Host stays the name", async () => {
    const receiver = await startReceiver();
    try {
      const url = new URL(`http://hooks.pinned.invalid:${receiver.port}/hook`);
      const status = await sendPinned(
        { url, address: "127.0.0.1", family: 4 },
        { headers: { "content-type": "application/a2a+json" }, body: "{}", signal: AbortSignal.timeout(5000) },
      );
      expect(status).toBe(200);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]?.headers.host).toBe(`hooks.pinned.invalid:${receiver.port}`);
      expect(receiver.received[0]?.body).toBe("{}");
    } finally {
      await receiver.close();
    }
  });
});
