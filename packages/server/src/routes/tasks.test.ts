import { MemoryStore } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { TaskDetail, TaskPage } from "../schemas/tasks.ts";
import { APPROVAL_SCRIPT, apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";

describe("POST /v1/tasks", () => {
  it("creates a task for the caller's principal, attributed to the token's actor", async () => {
    const fx = await apiFixture();
    const response = await fx.call("POST", "/v1/tasks", { body: { objective: "Summarize", metadata: { ticket: 7 } } });
    expect(response.status).toBe(201);
    const body = await json<{ taskId: string; status: string }>(response);
    expect(body.status).toBe("created");
    expect(response.headers.get("location")).toBe(`/v1/tasks/${body.taskId}`);
    const record = await fx.store.getTask(body.taskId);
    expect(record.principal).toBe("acme");
    const [created, objective] = await fx.store.read(body.taskId);
    expect(created).toMatchObject({
      type: "task_created",
      agent: "default",
      model: "script:inline",
      metadata: { ticket: 7 },
    });
    expect(objective).toMatchObject({
      type: "human_input",
      carrier: "objective",
      text: "Summarize",
      actor: { id: "alice", verified: true, issuer: "sema-token" },
    });
  });

  it("records the task's model settings and output schema on task_created; a bad one is a 400 naming it", async () => {
    const fx = await apiFixture();
    const settings = {
      temperature: 0.2,
      seed: 7,
      toolChoice: "none",
      output: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
    };
    const response = await fx.call("POST", "/v1/tasks", { body: { objective: "Answer", settings } });
    expect(response.status).toBe(201);
    const { taskId } = await json<{ taskId: string }>(response);
    const [created] = await fx.store.read(taskId);
    expect(created).toMatchObject({
      type: "task_created",
      v: 2,
      settings: { temperature: 0.2, seed: 7, toolChoice: "none", output: { type: "object", required: ["answer"] } },
    });
    const bad = await fx.call("POST", "/v1/tasks", { body: { objective: "Answer", settings: { temperature: "hot" } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await json(bad))).toContain("temperature");
    const unknown = await fx.call("POST", "/v1/tasks", { body: { objective: "Answer", settings: { temprature: 1 } } });
    expect(unknown.status).toBe(400);
  });

  it("refuses an unknown agent with the failing path", async () => {
    const fx = await apiFixture();
    const response = await fx.call("POST", "/v1/tasks", { body: { objective: "x", agent: "nope" } });
    expect(response.status).toBe(400);
    expect((await json<{ error: { details: { path: string } } }>(response)).error.details.path).toBe("body.agent");
  });

  it("sanitizes the objective at the ingress: NFC, control characters removed, CRLF → LF", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx, "Cafe\u0301\r\nnext\u0000\u0007 line\tend\u009b");
    const [, objective] = await fx.store.read(taskId);
    expect(objective).toMatchObject({ text: "Café\nnext line\tend" });
  });
});

describe("GET /v1/tasks", () => {
  it("lists the caller's own tasks newest first, with cursor pagination and a status filter", async () => {
    // A clock that moves on every reading, so creation order is strict (ids within one ms are random).
    let ms = Date.parse("2026-01-01T00:00:00Z");
    const fx = await apiFixture({ store: new MemoryStore({ now: () => ms++ }) });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createTask(fx, `task ${i}`));
    await createTask(fx, "someone else's", fx.tokens.mallory);
    await runOnce(fx, ids[0] as string);

    const first = TaskPage.parse(await json(await fx.call("GET", "/v1/tasks?limit=2")));
    expect(first.tasks.map((t) => t.objective)).toEqual(["task 4", "task 3"]);
    expect(first.nextCursor).toBeDefined();
    const rest = TaskPage.parse(
      await json(await fx.call("GET", `/v1/tasks?limit=10&cursor=${encodeURIComponent(first.nextCursor ?? "")}`)),
    );
    expect(rest.tasks.map((t) => t.objective)).toEqual(["task 2", "task 1", "task 0"]);
    expect(rest.nextCursor).toBeUndefined();

    const completed = TaskPage.parse(await json(await fx.call("GET", "/v1/tasks?status=completed")));
    expect(completed.tasks.map((t) => t.taskId)).toEqual([ids[0]]);
    expect(completed.tasks[0]?.usage.inputTokens).toBeGreaterThan(0);
  });

  it("refuses a bad cursor, status or limit with a 400", async () => {
    const fx = await apiFixture();
    for (const query of ["cursor=garbage", "status=done", "limit=0", "limit=abc", "limit=100000", "extra=1"]) {
      const response = await fx.call("GET", `/v1/tasks?${query}`);
      expect(response.status, query).toBe(400);
    }
  });
});

describe("GET /v1/tasks/:taskId", () => {
  it("shows status, usage, result, pending approvals with digest and input", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const parked = TaskDetail.parse(await json(await fx.call("GET", `/v1/tasks/${taskId}`)));
    expect(parked).toMatchObject({ status: "parked", parkedReason: "approval", objective: "Do the thing" });
    expect(parked.pendingApprovals).toEqual([
      {
        callId: "call-1",
        name: "write_note",
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        inputJson: '{"text":"hello"}',
        input: { text: "hello" },
      },
    ]);
    const approve = await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-1`, {
      token: fx.tokens.bob,
      body: { decision: "approve", digest: parked.pendingApprovals[0]?.digest },
    });
    expect(approve.status).toBe(200);
    await runOnce(fx, taskId);
    const done = TaskDetail.parse(await json(await fx.call("GET", `/v1/tasks/${taskId}`)));
    expect(done).toMatchObject({ status: "completed", result: "finished", pendingApprovals: [] });
    expect(done.usage.inputTokens).toBeGreaterThan(0);
  });

  it("is a 404 for an unknown task", async () => {
    const fx = await apiFixture();
    const response = await fx.call("GET", "/v1/tasks/0190aaaa-0000-7000-8000-000000000000");
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error: { code: "TaskNotFound" } });
  });
});
