/**
 * Durability through the official client: the server is closed mid-task and started again on
 * the same SQLite file; `SubscribeToTask` then replays the log and follows it live, each event
 * once; push notifications owed when the server stopped are delivered after it starts, signed,
 * and the ones already acknowledged are not sent again.
 */
import { rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SendMessageRequest, StreamResponse, TaskState } from "@a2a-js/sdk";
import { type Agent, defineTool } from "@sema-agent/core";
import { ScriptedModel, type ScriptedTurn, type ScriptStep } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type A2AServer, a2aClient, freshDir, startA2AServer, type Transport } from "../test-support/a2a-server.ts";
import { writeTool } from "../test-support/api-fixture.ts";
import { until } from "../test-support/until.ts";
import { signPush } from "./push-dispatcher.ts";
import { project } from "./task-projection.ts";

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

let servers: A2AServer[] = [];
let dir: string | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  servers = [];
  await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  receiver = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function agentWith(steps: ScriptStep[]): Agent {
  return { name: "default", model: new ScriptedModel(steps, { mode: "by-transcript" }), tools: [lookup, writeTool] };
}

async function boot(path: string, turns: ScriptStep[], port?: number) {
  const server = await startA2AServer(path, { default: agentWith(turns) }, port === undefined ? {} : { port });
  servers.push(server);
  return server;
}

function send(text: string, configuration?: unknown, extra: { taskId?: string; data?: unknown } = {}) {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      parts: [...(text === "" ? [] : [{ text }]), ...(extra.data === undefined ? [] : [{ data: extra.data }])],
      ...(extra.taskId === undefined ? {} : { taskId: extra.taskId }),
    },
    ...(configuration === undefined ? {} : { configuration }),
  });
}

const json = (events: readonly StreamResponse[]) => events.map((event) => JSON.stringify(StreamResponse.toJSON(event)));

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("SubscribeToTask over %s across a restart", (transport) => {
  it("replays the log, then follows it live: nothing lost, nothing repeated", async () => {
    dir = freshDir();
    const path = join(dir, "sema.db");
    // The second turn never answers before the restart: the task is mid-run when the server stops.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const script = (second: ScriptStep): ScriptStep[] => [
      { text: "Part one.", toolCalls: [{ name: "lookup", input: { q: "a" }, callId: "call-a" }] },
      second,
    ];
    const first = await boot(path, script({ text: "never", delayMs: 60_000 }));
    const admin = first.serving.firstToken?.token ?? "";
    const port = Number(new URL(first.serving.url).port);
    const client = await a2aClient(first.serving.url, admin, transport);
    const created = await client.sendMessage(send("Two parts", { returnImmediately: true }));
    const taskId = "id" in created ? created.id : "";
    await until(async () =>
      (await first.store.read(taskId)).some((e) => e.type === "tool_result") ? true : undefined,
    );
    // A subscriber before the stop sees a prefix of the log's stream.
    const before: StreamResponse[] = [];
    const early = (async () => {
      try {
        for await (const event of client.resubscribeTask({ tenant: "", id: taskId })) before.push(event);
      } catch {
        // The stream is cut by the stop.
      }
    })();
    await until(() => (before.length >= 4 ? true : undefined));
    await first.stop();
    await early;
    servers = [];

    // After the restart the second turn waits for the test, so the subscriber joins mid-run.
    const second = await boot(
      path,
      script(async () => {
        await gate;
        return { text: "Part two." };
      }),
      port,
    );
    const again = await a2aClient(second.serving.url, admin, transport);
    const after: StreamResponse[] = [];
    const following = (async () => {
      for await (const event of again.resubscribeTask({ tenant: "", id: taskId })) after.push(event);
    })();
    await until(() => (after.length >= before.length ? true : undefined));
    release();
    await following;

    const log = await second.store.read(taskId);
    expect(log.some((e) => e.type === "leg_ended" && e.reason === "parked:shutdown")).toBe(true);
    expect(log.at(-2)?.type === "task_completed" || log.at(-1)?.type === "task_completed").toBe(true);
    // Exactly the projection of the whole log, each item once, in order.
    const expected: StreamResponse[] = [];
    const projection = project(taskId, []);
    for (const event of log) expected.push(...projection.apply(event));
    expect(json(after)).toEqual(json(expected));
    expect(json(before)).toEqual(json(expected).slice(0, before.length));
    const artifacts = after.flatMap((e) =>
      e.payload?.$case === "artifactUpdate" ? [e.payload.value.artifact?.artifactId] : [],
    );
    expect(new Set(artifacts).size).toBe(artifacts.length);
    expect(artifacts).toHaveLength(2);
    const finalState = after.at(-1)?.payload;
    expect(finalState?.$case === "statusUpdate" && finalState.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // A finished task is not subscribable (A2A): read it instead.
    await expect(async () => {
      for await (const _ of again.resubscribeTask({ tenant: "", id: taskId })) void _;
    }).rejects.toThrow(/ended/);
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  accepted: boolean;
}

async function webhook(): Promise<{ url: string; received: Received[]; accept: { on: boolean } }> {
  const received: Received[] = [];
  const accept = { on: true };
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), accepted: accept.on });
      response.writeHead(accept.on ? 200 : 503).end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, accept };
}

function stateOf(body: string): string | undefined {
  const parsed = JSON.parse(body) as {
    task?: { status?: { state?: string } };
    statusUpdate?: { status?: { state?: string } };
  };
  return parsed.task?.status?.state ?? parsed.statusUpdate?.status?.state;
}

describe("push notifications", () => {
  it("are signed, sent at each state change, and the owed ones delivered after a restart, once", async () => {
    dir = freshDir();
    const path = join(dir, "sema.db");
    const hook = await webhook();
    const script: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_note", input: { text: "x" }, callId: "call-w" }] },
      { text: "Wrote it." },
    ];
    const first = await boot(path, script);
    const admin = first.serving.firstToken?.token ?? "";
    const port = Number(new URL(first.serving.url).port);
    const client = await a2aClient(first.serving.url, admin, "JSONRPC");
    const created = await client.sendMessage(
      send("Write", { returnImmediately: true, taskPushNotificationConfig: { url: hook.url, token: "hook-secret" } }),
    );
    const taskId = "id" in created ? created.id : "";
    const states = () => hook.received.filter((r) => r.accepted).map((r) => stateOf(r.body));
    await until(() => (states().includes("TASK_STATE_INPUT_REQUIRED") ? true : undefined));
    expect(states()).toEqual(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]);
    for (const request of hook.received) {
      // The signing key is never sent: a receiver checks the signature, not an echoed secret.
      expect(request.headers["x-a2a-notification-token"]).toBeUndefined();
      expect(request.headers["content-type"]).toBe("application/a2a+json");
      const signature = String(request.headers["x-sema-signature"]);
      const timestamp = Number(/^t=(\d+),/.exec(signature)?.[1]);
      expect(signature).toBe(signPush("hook-secret", timestamp, request.body));
    }

    // The config methods, through the client; another config, listed, read, deleted.
    const extra = await client.createTaskPushNotificationConfig({
      tenant: "",
      id: "second",
      taskId,
      url: hook.url,
      token: "t2",
      authentication: undefined,
    });
    expect(extra).toMatchObject({ id: "second", taskId, url: hook.url });
    expect(
      (await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs,
    ).toHaveLength(2);
    expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId, id: "second" })).toMatchObject({
      token: "t2",
    });
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "second" });
    expect(
      (await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs,
    ).toHaveLength(1);

    // The webhook goes down; the task runs on to its end; the notifications are owed.
    hook.accept.on = false;
    const approval = (await client.getTask({ tenant: "", id: taskId })).status?.message?.parts.find(
      (p) => p.content?.$case === "data",
    )?.content?.value as { digest: string };
    await client.sendMessage(
      send(
        "",
        { returnImmediately: true },
        { taskId, data: { callId: "call-w", decision: "approve", digest: approval.digest } },
      ),
    );
    await until(async () => ((await first.store.getTask(taskId)).summary.status === "completed" ? true : undefined));
    await until(() => (hook.received.some((r) => !r.accepted) ? true : undefined));
    await first.stop();
    servers = [];

    hook.accept.on = true;
    await boot(path, script, port);
    await until(() => (states().includes("TASK_STATE_COMPLETED") ? true : undefined));
    expect(states()).toEqual([
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_WORKING",
      "TASK_STATE_COMPLETED",
    ]);
  });
});
