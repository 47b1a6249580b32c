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

  it("filters by agent, objective text, parent and roots, and shows agent, model, creator and cost", async () => {
    let ms = Date.parse("2026-01-01T00:00:00Z");
    const fx = await apiFixture({
      store: new MemoryStore({ now: () => ms++ }),
      app: { quotas: { prices: { inline: { input: 1, output: 2 } } } },
    });
    const trip = await createTask(fx, "Book a TRIP to Lisbon");
    const report = await createTask(fx, "Write the report");
    await createTask(fx, "trip of someone else", fx.tokens.mallory);
    // A child as a parent's tool call writes it: same principal, its parent named on task_created.
    const [child] = await fx.store.createTask({
      created: {
        type: "task_created",
        v: 1,
        objective: "Sub-trip",
        principal: "acme",
        agent: "helper",
        parentTaskId: trip,
      },
    });
    await runOnce(fx, report);
    const ids = async (query: string) =>
      TaskPage.parse(await json(await fx.call("GET", `/v1/tasks?${query}`))).tasks.map((task) => task.taskId);
    expect(await ids("q=trip")).toEqual([child?.taskId, trip]);
    expect(await ids("q=TRIP%20TO")).toEqual([trip]);
    expect(await ids("agent=default")).toEqual([report, trip]);
    expect(await ids("agent=helper")).toEqual([child?.taskId]);
    expect(await ids(`parentTaskId=${trip}`)).toEqual([child?.taskId]);
    expect(await ids("roots=true")).toEqual([report, trip]);
    expect(await ids("roots=true&q=trip")).toEqual([trip]);
    expect(await ids("roots=false")).toHaveLength(3);
    // Each item says how many children it has: the list shows "Children (n)" only where there are.
    const counts = async (query: string) =>
      TaskPage.parse(await json(await fx.call("GET", `/v1/tasks?${query}`))).tasks.map((task) => task.childCount);
    expect(await counts("roots=true")).toEqual([0, 1]);
    expect(await counts(`parentTaskId=${trip}`)).toEqual([0]);

    const page = TaskPage.parse(await json(await fx.call("GET", "/v1/tasks?status=completed")));
    const [item] = page.tasks;
    expect(item).toMatchObject({
      agent: "default",
      model: "script:inline",
      createdBy: { actorId: "alice", verified: true },
    });
    const usage = item?.usage;
    expect(usage?.costUsd).toBeCloseTo(((usage?.inputTokens ?? 0) * 1 + (usage?.outputTokens ?? 0) * 2) / 1e6, 12);
    // The detail names the price the cost was counted at (the studio prices each turn with it).
    const detail = TaskDetail.parse(await json(await fx.call("GET", `/v1/tasks/${report}`)));
    expect(detail.price).toEqual({ input: 1, output: 2 });
    // And the whole table: the studio prices each turn at the model that ran it.
    expect(detail.prices).toEqual({ inline: { input: 1, output: 2 } });
    // Without prices, no cost and no price.
    const plain = await apiFixture();
    const unpriced = await createTask(plain, "x");
    const [bare] = TaskPage.parse(await json(await plain.call("GET", "/v1/tasks"))).tasks;
    expect(bare?.usage.costUsd).toBeUndefined();
    const unpricedDetail = TaskDetail.parse(await json(await plain.call("GET", `/v1/tasks/${unpriced}`)));
    expect(unpricedDetail.price).toBeUndefined();
    expect(unpricedDetail.prices).toBeUndefined();
  });

  it("refuses a bad cursor, status, limit or filter with a 400", async () => {
    const fx = await apiFixture();
    const long = "x".repeat(201);
    for (const query of [
      "cursor=garbage",
      "status=done",
      "limit=0",
      "limit=abc",
      "limit=100000",
      "extra=1",
      "q=",
      `q=${long}`,
      "agent=",
      "agent=a%20b",
      "roots=yes",
      "roots=true&parentTaskId=abc",
      "parentTaskId=",
    ]) {
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
