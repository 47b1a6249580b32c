/**
 * Two principals × every endpoint: a caller of one principal reaches nothing of the other's —
 * every task route answers exactly as for a task that does not exist (404, or 403 where the
 * caller's own token is refused before any task is looked at), and nothing is recorded.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { listen } from "./listen.ts";
import { APPROVAL_SCRIPT, apiFixture, createTask, json, runOnce } from "./test-support/api-fixture.ts";

const UNKNOWN = "0190aaaa-0000-7000-8000-000000000000";

interface Probe {
  name: string;
  method: string;
  path: (taskId: string) => string;
  body?: (digest: string, taskId: string) => unknown;
}

const PROBES: Probe[] = [
  { name: "get", method: "GET", path: (id) => `/v1/tasks/${id}` },
  { name: "events json", method: "GET", path: (id) => `/v1/tasks/${id}/events?format=json` },
  { name: "events sse", method: "GET", path: (id) => `/v1/tasks/${id}/events` },
  { name: "steer", method: "POST", path: (id) => `/v1/tasks/${id}/inputs`, body: () => ({ text: "hi" }) },
  {
    name: "wake",
    method: "POST",
    path: (id) => `/v1/tasks/${id}/inputs`,
    body: () => ({ text: "hi", carrier: "wake", lane: "supervisor" }),
  },
  {
    name: "approve",
    method: "POST",
    path: (id) => `/v1/tasks/${id}/approvals/call-1`,
    body: (digest) => ({ decision: "approve", digest }),
  },
  { name: "interrupt", method: "POST", path: (id) => `/v1/tasks/${id}/interrupt` },
  { name: "cancel", method: "POST", path: (id) => `/v1/tasks/${id}/cancel`, body: () => ({}) },
  { name: "resume", method: "POST", path: (id) => `/v1/tasks/${id}/resume` },
  {
    name: "ag-ui resume",
    method: "POST",
    path: () => "/v1/agents/default/ag-ui",
    body: (digest, id) => ({
      threadId: id,
      runId: "run-1",
      messages: [],
      resume: [{ interruptId: "call-1", status: "resolved", payload: { approved: true, digest } }],
    }),
  },
];

describe("isolation between principals", () => {
  for (const [owner, intruder] of [
    ["alice", "mallory"],
    ["mallory", "alice"],
  ] as const) {
    it(`${intruder} reaches nothing of ${owner}'s task, on every endpoint`, async () => {
      const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { workers: { notify: () => {}, resume: () => {} } } });
      const taskId = await createTask(fx, "secret objective", fx.tokens[owner]);
      await runOnce(fx, taskId);
      const ownerView = await json<{ pendingApprovals: { digest: string }[] }>(
        await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[owner] }),
      );
      const digest = ownerView.pendingApprovals[0]?.digest ?? "";
      const before = await fx.store.read(taskId);

      for (const probe of PROBES) {
        const options = { token: fx.tokens[intruder] };
        const theirs = await fx.call(probe.method, probe.path(taskId), {
          ...options,
          ...(probe.body === undefined ? {} : { body: probe.body(digest, taskId) }),
        });
        const unknown = await fx.call(probe.method, probe.path(UNKNOWN), {
          ...options,
          ...(probe.body === undefined ? {} : { body: probe.body(digest, UNKNOWN) }),
        });
        // 403 only where the caller's own token is refused first (a lane it has no role for),
        // which is the same for any task id: either way it says nothing about this task.
        expect(theirs.status, probe.name).toBe(unknown.status);
        expect([403, 404], probe.name).toContain(theirs.status);
        const body = await theirs.text();
        expect(body, probe.name).not.toContain("secret");
        expect(body.replaceAll(taskId, "ID"), probe.name).toBe((await unknown.text()).replaceAll(UNKNOWN, "ID"));
      }
      // A message on an unknown thread starts one, so here the twin is the read of an unknown task.
      const message = { threadId: taskId, runId: "run-1", messages: [{ id: "m1", role: "user", content: "hi" }] };
      const agUi = await fx.call("POST", "/v1/agents/default/ag-ui", { token: fx.tokens[intruder], body: message });
      const unknownRead = await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[intruder] });
      expect(agUi.status).toBe(404);
      expect(await agUi.text()).toBe(await unknownRead.text());
      const list = await json<{ tasks: unknown[] }>(await fx.call("GET", "/v1/tasks", { token: fx.tokens[intruder] }));
      expect(list.tasks).toEqual([]);
      expect(await fx.store.read(taskId)).toEqual(before);

      // The owner still reaches all of it.
      const mine = await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[owner] });
      expect(mine.status).toBe(200);
    });
  }

  it("the chat endpoints answer for another principal's chat id exactly as for an unknown one", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { workers: { notify: () => {}, resume: () => {} } } });
    const taskId = await createTask(fx, "secret objective", fx.tokens.alice);
    await runOnce(fx, taskId);
    const digest =
      (await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`)))
        .pendingApprovals[0]?.digest ?? "";
    const before = await fx.store.read(taskId);
    const asked = { id: "m-new", role: "user", parts: [{ type: "text", text: "hi" }] };
    const answered = {
      id: "turn-2",
      role: "assistant",
      parts: [
        {
          type: "tool-write_note",
          toolCallId: "call-1",
          state: "approval-responded",
          input: { text: "hello" },
          approval: { id: "call-1", approved: true, signature: digest },
        },
      ],
    };
    const unknownChat = await fx.call("GET", `/v1/chat/${UNKNOWN}/messages`, { token: fx.tokens.mallory });
    const notFound = (await unknownChat.text()).replaceAll(UNKNOWN, "ID");
    expect(unknownChat.status).toBe(404);
    const chat = (path: string, message: unknown) =>
      fx.call("POST", path, {
        token: fx.tokens.mallory,
        body: { id: taskId, messages: [message], trigger: "submit-message" },
      });
    // A message or an approval response under the owner's chat id: the 404 of an unknown chat.
    for (const theirs of [
      await chat("/v1/chat", asked),
      await chat("/v1/chat", answered),
      await chat("/v1/agents/default/chat", asked),
      await fx.call("GET", `/v1/chat/${taskId}/messages`, { token: fx.tokens.mallory }),
      await fx.call("GET", `/v1/agents/default/chat/${taskId}/messages`, { token: fx.tokens.mallory }),
    ]) {
      expect(theirs.status).toBe(404);
      expect((await theirs.text()).replaceAll(taskId, "ID")).toBe(notFound);
    }
    // Resume: nothing to resume, as for any unknown chat (what `useChat({ resume: true })` expects).
    for (const path of [`/v1/chat/{id}/stream`, `/v1/agents/default/chat/{id}/stream`]) {
      const theirs = await fx.call("GET", path.replace("{id}", taskId), { token: fx.tokens.mallory });
      const unknown = await fx.call("GET", path.replace("{id}", UNKNOWN), { token: fx.tokens.mallory });
      expect([theirs.status, unknown.status]).toEqual([204, 204]);
    }
    expect(await fx.store.read(taskId)).toEqual(before);
    // The owner reaches the chat.
    expect((await fx.call("GET", `/v1/chat/${taskId}/messages`)).status).toBe(200);
  });

  it("a token of the same principal reaches the task, whoever created it", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx, "shared", fx.tokens.alice);
    expect((await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens.bob })).status).toBe(200);
  });

  for (const [owner, intruder] of [
    ["alice", "mallory"],
    ["mallory", "alice"],
  ] as const) {
    it(`over MCP, ${intruder} reaches nothing of ${owner}'s task, with any tool or resource`, async () => {
      const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app: { workers: { notify: () => {}, resume: () => {} } } });
      const taskId = await createTask(fx, "secret objective", fx.tokens[owner]);
      await runOnce(fx, taskId);
      const ownerView = await json<{ pendingApprovals: { digest: string }[] }>(
        await fx.call("GET", `/v1/tasks/${taskId}`, { token: fx.tokens[owner] }),
      );
      const digest = ownerView.pendingApprovals[0]?.digest ?? "";
      const before = await fx.store.read(taskId);
      const server = await listen(fx.app, { port: 0 });
      const client = new Client({ name: "intruder", version: "1.0.0" });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${fx.tokens[intruder]}` } },
          }),
        );
        const probes: [string, (id: string) => Record<string, unknown>][] = [
          ["get_task", (id) => ({ taskId: id })],
          ["send_to_task", (id) => ({ taskId: id, text: "hi" })],
          ["send_to_task", (id) => ({ taskId: id, text: "hi", policy: "interrupt" })],
          ["decide_approval", (id) => ({ taskId: id, callId: "call-1", digest, decision: "approve" })],
          ["cancel_task", (id) => ({ taskId: id })],
        ];
        for (const [name, args] of probes) {
          const theirs = await client.callTool({ name, arguments: args(taskId) });
          const unknown = await client.callTool({ name, arguments: args(UNKNOWN) });
          const body = JSON.stringify(theirs);
          expect(theirs.isError, name).toBe(true);
          expect(body, name).not.toContain("secret");
          expect(body.replaceAll(taskId, "ID"), name).toBe(JSON.stringify(unknown).replaceAll(UNKNOWN, "ID"));
        }
        for (const uri of [(id: string) => `sema://tasks/${id}`, (id: string) => `sema://tasks/${id}/events`]) {
          const theirs = await client.readResource({ uri: uri(taskId) }).catch((error: Error) => error.message);
          const unknown = await client.readResource({ uri: uri(UNKNOWN) }).catch((error: Error) => error.message);
          expect(String(theirs).replaceAll(taskId, "ID")).toBe(String(unknown).replaceAll(UNKNOWN, "ID"));
          expect(String(theirs)).toMatch(/TaskNotFound/);
        }
        const list = await client.callTool({ name: "list_tasks", arguments: {} });
        expect(list.structuredContent).toEqual({ tasks: [] });
        expect((await client.listResources()).resources).toEqual([]);
        expect(await fx.store.read(taskId)).toEqual(before);
      } finally {
        await client.close();
        await server.close();
      }
    });
  }
});
