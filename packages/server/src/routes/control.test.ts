import { runLeg } from "@sema-agent/core";
import { describe, expect, it, vi } from "vitest";
import { apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";

describe("POST /v1/tasks/:taskId/interrupt, /cancel, /resume", () => {
  it("interrupt says false when no leg runs, and records a request while one does", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    expect(await json(await fx.call("POST", `/v1/tasks/${taskId}/interrupt`))).toEqual({ taskId, interrupted: false });
    // A leg whose host died leaves the task running: the interrupt is recorded for whoever recovers it.
    const lease = await fx.store.acquireLease(taskId, { holder: { id: "other" }, ttlMs: 60_000 });
    const record = await fx.store.getTask(taskId);
    await fx.store.append(
      taskId,
      [{ type: "leg_started", v: 1, legId: "leg-1", trigger: "start", holder: { id: "other" } }],
      { expectedSeq: record.lastSeq, leaseToken: lease.token },
    );
    const response = await fx.call("POST", `/v1/tasks/${taskId}/interrupt`, { body: {} });
    expect(response.status).toBe(202);
    expect(await json(response)).toEqual({ taskId, interrupted: true });
    const note = (await fx.store.read(taskId)).at(-1);
    expect(note).toMatchObject({ type: "interrupt_requested", actor: { id: "alice" } });
  });

  it("cancel ends a task once, with its reason and actor; a cancelled or completed task is a 409", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    const first = await fx.call("POST", `/v1/tasks/${taskId}/cancel`, { body: { reason: "not needed" } });
    expect(await json(first)).toEqual({ taskId, cancelled: true });
    const again = await fx.call("POST", `/v1/tasks/${taskId}/cancel`);
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ error: { code: "TaskFinished", details: { status: "cancelled" } } });
    expect((await fx.store.read(taskId)).at(-1)).toMatchObject({
      type: "task_cancelled",
      reason: "not needed",
      actor: { id: "alice", verified: true },
    });
    const done = await createTask(fx);
    await runOnce(fx, done);
    expect((await fx.call("POST", `/v1/tasks/${done}/cancel`)).status).toBe(409);
    expect((await fx.call("POST", `/v1/tasks/${done}/interrupt`)).status).toBe(409);
  });

  it("resume hands a parked task to the worker pool, durably even without one; 409 when finished", async () => {
    const resume = vi.fn();
    const fx = await apiFixture({ app: { workers: { notify: () => {}, resume } } });
    const taskId = await createTask(fx);
    const response = await fx.call("POST", `/v1/tasks/${taskId}/resume`);
    expect(response.status).toBe(202);
    expect(resume).toHaveBeenCalledWith(taskId);
    await runOnce(fx, taskId);
    expect((await fx.call("POST", `/v1/tasks/${taskId}/resume`)).status).toBe(409);

    // Without a pool in this process the request is still durable: a worker anywhere picks it up.
    const bare = await apiFixture();
    const other = await createTask(bare);
    // Parked by an interrupt: not runnable until someone asks.
    await runLeg({ store: bare.store, agent: bare.agent }, other, { signal: AbortSignal.abort() });
    expect(await bare.store.listRunnable()).toEqual([]);
    const accepted = await bare.call("POST", `/v1/tasks/${other}/resume`);
    expect(accepted.status).toBe(202);
    expect((await bare.store.listRunnable()).map((r) => r.taskId)).toContain(other);
  });

  it("resume is a 409 while approvals wait", async () => {
    const fx = await apiFixture({
      turns: [{ toolCalls: [{ name: "write_note", input: { text: "x" }, callId: "c" }] }],
      app: { workers: { notify: () => {}, resume: () => {} } },
    });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const response = await fx.call("POST", `/v1/tasks/${taskId}/resume`);
    expect(response.status).toBe(409);
    expect(await json(response)).toMatchObject({ error: { details: { openApprovals: ["c"] } } });
  });
});
