/**
 * The event stream over a real socket with a real SSE client (the `eventsource` package): the
 * connection is cut mid-task, the task goes on, and the client's reconnection with Last-Event-ID
 * receives every stored event exactly once, in order; after the terminal event it stops.
 */
import { connect, type Socket } from "node:net";
import { EventSource, type FetchLike } from "eventsource";
import { afterEach, describe, expect, it } from "vitest";
import { type Listening, listen } from "./node/listen.ts";
import { apiFixture, createTask, json, runOnce } from "./test-support/api-fixture.ts";
import { until } from "./test-support/until.ts";

const STORED_TYPES = [
  "task_created",
  "leg_started",
  "leg_ended",
  "human_input",
  "user_message",
  "model_turn",
  "tool_call_started",
  "tool_result",
  "approval_requested",
  "approval_decided",
  "hook_feedback",
  "engine_note",
  "interrupt_requested",
  "resume_requested",
  "child_task",
  "compaction",
  "wake_scheduled",
  "task_completed",
  "task_failed",
  "task_cancelled",
];

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("SSE over a socket", () => {
  it("reconnects with Last-Event-ID after a dropped connection: nothing lost, nothing repeated", async () => {
    const fx = await apiFixture({
      turns: [{ toolCalls: [{ name: "write_note", input: { text: "a" }, callId: "call-1" }] }, { text: "all done" }],
    });
    server = await listen(fx.app, { port: 0 });
    const sockets = new Set<Socket>();
    server.server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    const taskId = await createTask(fx);

    const lastEventIds: (string | null)[] = [];
    const statuses: number[] = [];
    const authorized: FetchLike = async (url, init) => {
      const headers = new Headers(init.headers);
      lastEventIds.push(headers.get("last-event-id"));
      headers.set("authorization", `Bearer ${fx.tokens.alice}`);
      const response = await fetch(url, { ...init, headers });
      statuses.push(response.status);
      return response;
    };
    const source = new EventSource(`${server.url}/v1/tasks/${taskId}/events`, { fetch: authorized });
    const seen: number[] = [];
    for (const type of STORED_TYPES)
      source.addEventListener(type, (event) => {
        seen.push(Number(event.lastEventId));
      });
    try {
      await until(() => seen.length === 2);
      // Cut every connection from the server side, then let the task run while the client is away.
      for (const socket of sockets) socket.destroy();
      await runOnce(fx, taskId);
      const detail = await json<{ pendingApprovals: { digest: string }[] }>(
        await fx.call("GET", `/v1/tasks/${taskId}`),
      );
      await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-1`, {
        token: fx.tokens.bob,
        body: { decision: "approve", digest: detail.pendingApprovals[0]?.digest },
      });
      await runOnce(fx, taskId);
      const last = (await fx.store.getTask(taskId)).lastSeq;
      await until(() => seen.length >= last && source.readyState === EventSource.CLOSED);

      expect(seen).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      expect(lastEventIds[0]).toBeNull();
      expect(lastEventIds.slice(1)).toContain("2");
      // The last reconnection, after the terminal event, was told there is nothing more (204).
      expect(statuses.at(-1)).toBe(204);
    } finally {
      source.close();
    }
  });

  it("sends the stream close-delimited (no chunked framing): every event in order, then the server closes", async () => {
    const fx = await apiFixture({ turns: [{ text: "all done" }] });
    server = await listen(fx.app, { port: 0 });
    const taskId = await createTask(fx);
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1");
    let raw = "";
    let closed = false;
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => {
      raw += text;
    });
    socket.on("close", () => {
      closed = true;
    });
    socket.write(
      `GET /v1/tasks/${taskId}/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${fx.tokens.alice}\r\n\r\n`,
    );
    await until(() => raw.includes("event: task_created"));
    // The task runs while the stream is live: its events come from the tail.
    await runOnce(fx, taskId);
    await until(() => closed);
    const [head = "", body = ""] = raw.split("\r\n\r\n", 2);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).not.toContain("transfer-encoding");
    expect(head.toLowerCase()).toContain("connection: close");
    expect(body.startsWith("retry: ")).toBe(true);
    const ids = [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const last = (await fx.store.getTask(taskId)).lastSeq;
    expect(ids).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    // Whole frames only (no chunk sizes between them), the last one the leg's end.
    expect(body.split("\n\n").at(-1)).toBe("");
    expect(body).toContain("event: task_completed\n");
  });

  it("ends an open stream within a second of its token's revocation, with a final token_revoked event", async () => {
    const fx = await apiFixture();
    server = await listen(fx.app, { port: 0 });
    const taskId = await createTask(fx);
    const response = await fetch(`${server.url}/v1/tasks/${taskId}/events`, {
      headers: { authorization: `Bearer ${fx.tokens.alice}` },
    });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: task_created")) text += decoder.decode((await reader.read()).value);
    const alice = (await fx.tokenStore.list()).find((record) => record.actorId === "alice");
    expect(await fx.tokenStore.revoke(alice?.tokenId ?? "")).toBe(true);
    let ended = false;
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      ended = true;
    })();
    await until(() => ended, 3000);
    await reading;
    const frames = text.split("\n\n").filter((frame) => frame !== "");
    expect(frames.at(-1)).toMatch(/^event: token_revoked\ndata: \{"reason":"token_revoked","lastSeq":\d+\}$/);
    // And the token no longer opens one.
    const again = await fetch(`${server.url}/v1/tasks/${taskId}/events`, {
      headers: { authorization: `Bearer ${fx.tokens.alice}` },
    });
    expect(again.status).toBe(401);
  });
});
