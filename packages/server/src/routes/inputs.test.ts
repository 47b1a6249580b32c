import { describe, expect, it } from "vitest";
import { apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";

async function lastInput(fx: Awaited<ReturnType<typeof apiFixture>>, taskId: string) {
  const events = await fx.store.read(taskId);
  return events.filter((event) => event.type === "human_input").at(-1);
}

describe("POST /v1/tasks/:taskId/inputs", () => {
  it("parks a steer for a task no leg runs, attributed to the token's verified actor", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const response = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "Use tabs" } });
    expect(response.status).toBe(202);
    const sent = await json<{ inputId: string; delivery: string }>(response);
    expect(sent.delivery).toBe("parked");
    expect(await lastInput(fx, taskId)).toMatchObject({
      inputId: sent.inputId,
      carrier: "steer",
      source: "user",
      text: "Use tabs",
      actor: { id: "alice", verified: true, issuer: "sema-token" },
      issuer: "sema-token",
      principal: "acme",
    });
  });

  it("records a relayed speaker as unverified, issued by the token's actor", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const response = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      token: fx.tokens.frontend,
      headers: { "x-sema-speaker": "  Zoë  " },
      body: { text: "hello", carrier: "nextTurn", policy: "queue" },
    });
    expect(response.status).toBe(202);
    expect(await lastInput(fx, taskId)).toMatchObject({
      carrier: "nextTurn",
      policy: "queue",
      actor: { id: "Zoë", verified: false, issuer: "frontend" },
    });
  });

  it("decodes a UTF-8 speaker name sent as raw header bytes", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const latin1 = Buffer.from("José", "utf8").toString("latin1");
    const response = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      headers: { "x-sema-speaker": latin1 },
      body: { text: "hi" },
    });
    expect(response.status).toBe(202);
    expect(await lastInput(fx, taskId)).toMatchObject({ actor: { id: "José", verified: false } });
  });

  it("gives the supervisor lane only to tokens with the supervisor role", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const denied = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "x", lane: "supervisor" } });
    expect(denied.status).toBe(403);
    expect(await json(denied)).toMatchObject({ error: { code: "Forbidden" } });
    const allowed = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      token: fx.tokens.bob,
      body: { text: "Stop writing files", lane: "supervisor" },
    });
    expect(allowed.status).toBe(202);
    expect(await lastInput(fx, taskId)).toMatchObject({ source: "supervisor", actor: { id: "bob", verified: true } });
  });

  it("needs `from` on the external lane, records it unverified, and refuses `from` elsewhere", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const missing = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "x", lane: "external" } });
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ error: { details: { path: "body.from" } } });
    const onUser = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "x", from: "someone" } });
    expect(onUser.status).toBe(400);
    const ok = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      body: { text: "Build failed on main", lane: "external", from: "ci-webhook", carrier: "wake" },
    });
    expect(ok.status).toBe(202);
    expect(await lastInput(fx, taskId)).toMatchObject({
      source: "external",
      carrier: "wake",
      actor: { id: "ci-webhook", verified: false, issuer: "alice" },
    });
  });

  it("is idempotent under an inputId", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const body = { text: "once", inputId: "client-key-1" };
    const first = await json(await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body }));
    const again = await json(await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body }));
    expect(again).toEqual(first);
    const inputs = (await fx.store.read(taskId)).filter(
      (e) => e.type === "human_input" && e.inputId === "client-key-1",
    );
    expect(inputs).toHaveLength(1);
  });

  it("continues a finished task by default, as agent.send does; a steer asked for by name is a 409", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const steer = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "more", carrier: "steer" } });
    expect(steer.status).toBe(409);
    expect(await json(steer)).toMatchObject({ error: { code: "TaskFinished" } });
    const follow = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "And then?" } });
    expect(follow.status).toBe(202);
    const input = (await fx.store.read(taskId)).findLast((e) => e.type === "human_input");
    expect(input).toMatchObject({ carrier: "wake", text: "And then?", delivery: "parked" });
    expect((await fx.store.getTask(taskId)).summary.runnable).toBe(true);
  });

  it("refuses any input to a cancelled task", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    await fx.call("POST", `/v1/tasks/${taskId}/cancel`, { body: {} });
    const sent = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "hello?" } });
    expect(sent.status).toBe(409);
    expect(await json(sent)).toMatchObject({ error: { code: "TaskFinished", details: { status: "cancelled" } } });
  });

  it("refuses empty text after sanitizing, and text over the cap with a 413", async () => {
    const fx = await apiFixture({ app: { limits: { maxTextChars: 10 } } });
    const taskId = await createTask(fx, "short");
    const empty = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "\u0000\u0001 " } });
    expect(empty.status).toBe(400);
    const long = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, { body: { text: "x".repeat(11) } });
    expect(long.status).toBe(413);
    expect(await json(long)).toMatchObject({
      error: { code: "PayloadTooLarge", details: { path: "body.text", limit: 10 } },
    });
  });
});
