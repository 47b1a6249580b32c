/**
 * The MCP server over Streamable HTTP on a real socket, driven by the SDK's own `Client`: tools
 * listed, a run to completion with progress, a steer reaching the running model, approvals both
 * ways (elicitation, and get_task + decide_approval with the digest), a task's resources, and a
 * second principal who sees none of it.
 */
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { afterEach, describe, expect, it } from "vitest";
import { data, type McpFixture, mcpFixture, resourceJson, text } from "./test-support.ts";

let fx: McpFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const APPROVAL_STEPS = [
  { toolCalls: [{ name: "write_note", input: { text: "hello" }, callId: "call-1" }] },
  { text: "finished" },
];

interface Detail {
  taskId: string;
  status: string;
  result?: string;
  pendingApprovals: { callId: string; digest: string; name: string }[];
}

describe("MCP over Streamable HTTP", () => {
  it("lists a run tool per agent and the task tools", async () => {
    fx = await mcpFixture([{ text: "done" }]);
    const client = await fx.client(fx.tokens.alice);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["cancel_task", "decide_approval", "get_task", "list_tasks", "run_default", "send_to_task"].sort(),
    );
    const run = tools.find((tool) => tool.name === "run_default");
    expect(run?.inputSchema.required).toEqual(["objective"]);
  });

  it("runs an agent to completion, with progress notifications, and lists the task", async () => {
    fx = await mcpFixture([{ text: "The answer." }]);
    const client = await fx.client(fx.tokens.alice);
    const progress: string[] = [];
    const result = await client.callTool({ name: "run_default", arguments: { objective: "Answer me" } }, undefined, {
      onprogress: (note) => progress.push(note.message ?? ""),
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("The answer.");
    const detail = data<Detail>(result);
    expect(detail.status).toBe("completed");
    expect(progress).toContain("completed");
    expect(progress.some((line) => line.startsWith("model turn 1"))).toBe(true);
    const listed = data<{ tasks: { taskId: string }[] }>(await client.callTool({ name: "list_tasks", arguments: {} }));
    expect(listed.tasks.map((task) => task.taskId)).toEqual([detail.taskId]);
    const record = await fx.store.getTask(detail.taskId);
    expect(record.principal).toBe("acme");
  });

  it("returns the task id at once with wait false", async () => {
    fx = await mcpFixture([{ text: "later" }]);
    const client = await fx.client(fx.tokens.alice);
    const result = await client.callTool({ name: "run_default", arguments: { objective: "Go", wait: false } });
    const { taskId } = data<Detail>(result);
    expect(taskId).toMatch(/\S/);
    await expect
      .poll(async () => data<Detail>(await client.callTool({ name: "get_task", arguments: { taskId } })).status, {
        timeout: 10_000,
      })
      .toBe("completed");
  });

  it("steers a running task: the model's next turn sees the text with the caller's label", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const seen: ModelRequest[] = [];
    fx = await mcpFixture([
      async () => {
        started();
        await gate;
        return { text: "first draft" };
      },
      (request) => {
        seen.push(request);
        return { text: "steered answer" };
      },
    ]);
    const client = await fx.client(fx.tokens.alice);
    const call = client.callTool({ name: "run_default", arguments: { objective: "Draft it" } });
    await running;
    const [task] = data<{ tasks: { taskId: string; status: string }[] }>(
      await client.callTool({ name: "list_tasks", arguments: {} }),
    ).tasks;
    expect(task?.status).toBe("running");
    const sent = await client.callTool({
      name: "send_to_task",
      arguments: { taskId: task?.taskId, text: "Make it shorter" },
    });
    expect(sent.isError).toBeFalsy();
    release();
    const result = await call;
    expect(text(result)).toBe("steered answer");
    const users = (seen[0]?.transcript ?? []).filter((entry) => entry.role === "user");
    const steer = users.at(-1);
    expect(steer?.role === "user" ? steer.content : "").toContain("Make it shorter");
    expect(steer?.role === "user" ? steer.content : "").toContain("alice");
  });

  it("without elicitation: the run returns the pending approval; a wrong digest is refused, the right one runs the tool once", async () => {
    fx = await mcpFixture(APPROVAL_STEPS);
    const client = await fx.client(fx.tokens.bob);
    const parked = await client.callTool({ name: "run_default", arguments: { objective: "Write it" } });
    const detail = data<Detail>(parked);
    expect(detail.status).toBe("parked");
    const [approval] = detail.pendingApprovals;
    expect(approval).toMatchObject({ callId: "call-1", name: "write_note" });
    expect(text(parked)).toContain(approval?.digest ?? "?");
    const seen = data<Detail>(await client.callTool({ name: "get_task", arguments: { taskId: detail.taskId } }));
    expect(seen.pendingApprovals[0]?.digest).toBe(approval?.digest);

    const wrong = await client.callTool({
      name: "decide_approval",
      arguments: { taskId: detail.taskId, callId: "call-1", digest: "0".repeat(64), decision: "approve" },
    });
    expect(wrong.isError).toBe(true);
    expect(data<{ error: { code: string } }>(wrong).error.code).toBe("DigestMismatch");
    expect((await fx.store.read(detail.taskId)).some((event) => event.type === "approval_decided")).toBe(false);

    const right = await client.callTool({
      name: "decide_approval",
      arguments: { taskId: detail.taskId, callId: "call-1", digest: approval?.digest, decision: "approve", wait: true },
    });
    expect(text(right)).toBe("finished");
    const events = await fx.store.read(detail.taskId);
    expect(events.filter((event) => event.type === "tool_result")).toHaveLength(1);
    const decided = events.find((event) => event.type === "approval_decided");
    expect(decided?.type === "approval_decided" ? decided.actor : undefined).toMatchObject({
      id: "bob",
      verified: true,
    });
  });

  it("a caller without the approver role is refused by decide_approval", async () => {
    fx = await mcpFixture(APPROVAL_STEPS);
    const client = await fx.client(fx.tokens.alice);
    const detail = data<Detail>(await client.callTool({ name: "run_default", arguments: { objective: "Write it" } }));
    const digest = detail.pendingApprovals[0]?.digest;
    const refused = await client.callTool({
      name: "decide_approval",
      arguments: { taskId: detail.taskId, callId: "call-1", digest, decision: "approve" },
    });
    expect(data<{ error: { code: string } }>(refused).error.code).toBe("Forbidden");
  });

  it("with elicitation: the person is asked, and the answer is recorded as the session's actor, bound to the digest", async () => {
    fx = await mcpFixture(APPROVAL_STEPS);
    const asked: string[] = [];
    const client = await fx.client(fx.tokens.bob, { capabilities: { elicitation: {} } }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return { action: "accept", content: { decision: "approve", reason: "fine by me" } };
      }),
    );
    const result = await client.callTool({ name: "run_default", arguments: { objective: "Write it" } });
    expect(text(result)).toBe("finished");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("write_note");
    const { taskId } = data<Detail>(result);
    const events = await fx.store.read(taskId);
    const requested = events.find((event) => event.type === "approval_requested");
    const decided = events.find((event) => event.type === "approval_decided");
    expect(decided).toMatchObject({ decision: "approve", actor: { id: "bob", verified: true } });
    expect(decided?.type === "approval_decided" ? decided.digest : "").toBe(
      requested?.type === "approval_requested" ? requested.digest : "?",
    );
    expect(asked[0]).toContain(requested?.type === "approval_requested" ? requested.digest : "?");
  });

  it("with elicitation: a call decided elsewhere while the person is asked keeps that decision, and the run goes on", async () => {
    fx = await mcpFixture(APPROVAL_STEPS);
    const other = await fx.client(fx.tokens.bob);
    const client = await fx.client(fx.tokens.bob, { capabilities: { elicitation: {} } }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, async () => {
        const [task] = data<{ tasks: { taskId: string }[] }>(
          await other.callTool({ name: "list_tasks", arguments: {} }),
        ).tasks;
        const detail = data<Detail>(await other.callTool({ name: "get_task", arguments: { taskId: task?.taskId } }));
        await other.callTool({
          name: "decide_approval",
          arguments: {
            taskId: detail.taskId,
            callId: "call-1",
            digest: detail.pendingApprovals[0]?.digest,
            decision: "deny",
          },
        });
        return { action: "accept", content: { decision: "approve" } };
      }),
    );
    const result = await client.callTool({ name: "run_default", arguments: { objective: "Write it" } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("finished");
    const events = await fx.store.read(data<Detail>(result).taskId);
    const decisions = events.filter((event) => event.type === "approval_decided");
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ decision: "deny" });
  });

  it("with elicitation declined: the call is denied and the task goes on", async () => {
    fx = await mcpFixture(APPROVAL_STEPS);
    const client = await fx.client(fx.tokens.bob, { capabilities: { elicitation: {} } }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" })),
    );
    const result = await client.callTool({ name: "run_default", arguments: { objective: "Write it" } });
    const { taskId } = data<Detail>(result);
    const events = await fx.store.read(taskId);
    expect(events.find((event) => event.type === "approval_decided")).toMatchObject({ decision: "deny" });
    expect(text(result)).toBe("finished");
  });

  it("reads a task's transcript and its events as resources", async () => {
    fx = await mcpFixture([{ text: "Read me." }]);
    const client = await fx.client(fx.tokens.alice);
    const { taskId } = data<Detail>(await client.callTool({ name: "run_default", arguments: { objective: "Say" } }));
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toContain(`sema://tasks/${taskId}`);
    const transcript = await client.readResource({ uri: `sema://tasks/${taskId}` });
    const body = resourceJson<{ transcript: { role: string; text?: string }[] }>(transcript);
    expect(body.transcript.at(-1)).toMatchObject({ role: "assistant", text: "Read me." });
    const log = await client.readResource({ uri: `sema://tasks/${taskId}/events` });
    const { events } = resourceJson<{ events: { seq: number; type: string }[] }>(log);
    expect(events[0]?.type).toBe("task_created");
    expect(events.at(-1)?.type).toBe("leg_ended");
    const after = await client.readResource({ uri: `sema://tasks/${taskId}/events?after=${events.at(-2)?.seq}` });
    expect(resourceJson<{ events: unknown[] }>(after).events).toHaveLength(1);
  });

  it("a second principal's token sees none of the first's tasks, and cannot use its session", async () => {
    fx = await mcpFixture(APPROVAL_STEPS);
    const owner = await fx.client(fx.tokens.bob);
    const detail = data<Detail>(await owner.callTool({ name: "run_default", arguments: { objective: "Secret" } }));
    const { taskId } = detail;
    const digest = detail.pendingApprovals[0]?.digest ?? "";
    const before = await fx.store.read(taskId);
    const intruder = await fx.client(fx.tokens.mallory);
    expect(data<{ tasks: unknown[] }>(await intruder.callTool({ name: "list_tasks", arguments: {} })).tasks).toEqual(
      [],
    );
    expect((await intruder.listResources()).resources).toEqual([]);
    const probes: [string, Record<string, unknown>][] = [
      ["get_task", { taskId }],
      ["send_to_task", { taskId, text: "hi" }],
      ["decide_approval", { taskId, callId: "call-1", digest, decision: "approve" }],
      ["cancel_task", { taskId }],
    ];
    for (const [name, args] of probes) {
      const theirs = await intruder.callTool({ name, arguments: args });
      const unknown = await intruder.callTool({
        name,
        arguments: { ...args, taskId: "0190aaaa-0000-7000-8000-000000000000" },
      });
      expect(theirs.isError, name).toBe(true);
      expect(theirs.structuredContent, name).toEqual(
        JSON.parse(
          JSON.stringify(unknown.structuredContent).replaceAll("0190aaaa-0000-7000-8000-000000000000", taskId),
        ),
      );
      expect(data<{ error: { code: string } }>(theirs).error.code, name).toBe("TaskNotFound");
    }
    await expect(intruder.readResource({ uri: `sema://tasks/${taskId}` })).rejects.toThrow(/TaskNotFound/);
    await expect(intruder.readResource({ uri: `sema://tasks/${taskId}/events` })).rejects.toThrow(/TaskNotFound/);
    expect(await fx.store.read(taskId)).toEqual(before);

    // The owner's session id with the intruder's token: no such session.
    const sessionId = (owner.transport as { sessionId?: string } | undefined)?.sessionId ?? "";
    expect(sessionId).not.toBe("");
    const hijack = await fetch(`${fx.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${fx.tokens.mallory}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_task", arguments: { taskId } },
      }),
    });
    expect(hijack.status).toBe(404);
  });

  it("a session ends with its token: once revoked, its requests are 401s", async () => {
    fx = await mcpFixture([{ text: "done" }]);
    const client = await fx.client(fx.tokens.alice);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const [alice] = (await fx.tokenStore.list()).filter((token) => token.actorId === "alice");
    await fx.tokenStore.revoke(alice?.tokenId ?? "");
    await expect(client.listTools()).rejects.toThrow(/401|Unauthorized|not valid/);
  });

  it("a session the client ends (DELETE) is gone: its id is a 404 afterwards", async () => {
    fx = await mcpFixture([{ text: "done" }]);
    const client = await fx.client(fx.tokens.alice);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId ?? "";
    expect(sessionId).not.toBe("");
    await transport.terminateSession();
    const after = await fetch(`${fx.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${fx.tokens.alice}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
  });
});
