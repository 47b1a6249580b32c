/**
 * For the push-notification tests: `serve` on a SQLite file with a push policy the test chooses
 * (`startA2AServer` with its `urls`), and a webhook receiver on 127.0.0.1 that
 * records every request it gets.
 */
import { rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SendMessageRequest, type Task } from "@a2a-js/sdk";
import type { Agent } from "@sema-agent/core";
import { ScriptedModel, type ScriptStep } from "@sema-agent/core/testing";
import type { PushUrlPolicy } from "../a2a/push-url.ts";
import { type A2AServer, freshDir, startA2AServer } from "./a2a-server.ts";
import { writeTool } from "./api-fixture.ts";

/** An A2A server whose push configs the test can read. */
export type PushServer = A2AServer;

/** `serve` over a SQLite file in `dir` with the push policy `urls`. */
export function startPushServer(dir: string, agents: Record<string, Agent>, urls: PushUrlPolicy): Promise<PushServer> {
  return startA2AServer(join(dir, "sema.db"), agents, { urls });
}

/** One request a receiver got. */
export interface ReceivedPush {
  /** The request's path. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook on 127.0.0.1 answering 200 to everything, keeping what it got. */
export interface Receiver {
  port: number;
  received: ReceivedPush[];
  close(): Promise<void>;
}

/** Start a {@link Receiver}. */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedPush[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A scripted agent (by transcript) with the approval-gated `write_note` tool. */
export function pushAgent(steps: ScriptStep[]): Agent {
  return { name: "default", model: new ScriptedModel(steps, { mode: "by-transcript" }), tools: [writeTool] };
}

/** A call to `write_note` (parked for approval), then a reply: a task with two state changes to push. */
export const WRITE_THEN_DONE: ScriptStep[] = [
  { toolCalls: [{ name: "write_note", input: { text: "x" }, callId: "call-w" }] },
  { text: "Wrote it." },
];

/** An A2A message: text, a data part (an approval decision), an existing task, a push config. */
export function pushMessage(
  text: string,
  extra: { taskId?: string; data?: unknown; configuration?: unknown } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      parts: [...(text === "" ? [] : [{ text }]), ...(extra.data === undefined ? [] : [{ data: extra.data }])],
      ...(extra.taskId === undefined ? {} : { taskId: extra.taskId }),
    },
    ...(extra.configuration === undefined ? {} : { configuration: extra.configuration }),
  });
}

/** The approval's digest on a task parked at input-required. */
export function approvalDigest(task: Task): string {
  const data = task.status?.message?.parts.find((p) => p.content?.$case === "data")?.content?.value as
    | { digest?: string }
    | undefined;
  return data?.digest ?? "";
}

/** One push server and receiver per test, stopped (and its folder removed) by `stop`. */
export interface PushWorld {
  /** Start a server with push policy `urls` running `steps`, and a receiver on 127.0.0.1. */
  start(urls: PushUrlPolicy, steps?: ScriptStep[]): Promise<{ server: PushServer; receiver: Receiver; admin: string }>;
  /** Stop what `start` started (for `afterEach`). */
  stop(): Promise<void>;
}

/** A {@link PushWorld}: call `stop` in `afterEach`. */
export function pushWorld(): PushWorld {
  let server: PushServer | undefined;
  let receiver: Receiver | undefined;
  let dir: string | undefined;
  return {
    async start(urls, steps = WRITE_THEN_DONE) {
      dir = freshDir();
      receiver = await startReceiver();
      server = await startPushServer(dir, { default: pushAgent(steps) }, urls);
      return { server, receiver, admin: server.serving.firstToken?.token ?? "" };
    },
    async stop() {
      await server?.stop();
      await receiver?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      server = receiver = dir = undefined;
    },
  };
}
