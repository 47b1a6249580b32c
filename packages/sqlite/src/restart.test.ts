// Restarts on a real file: the process that set a timer, parked for an approval or died mid-leg
// is gone; a new one opens the same SQLite file and carries every task on.
import { type Agent, cancel, decideApproval, defineTool, fold, runLeg, startTask, wakeAt } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { dyingStore, ScriptedModel, SimulatedDeath } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

// Only the clock is faked (the stores and the harness read Date.now): the test moves it to the
// timer's due time instead of sleeping until then.
afterEach(() => vi.useRealTimers());

describe("across a restart (SQLite file)", () => {
  it("a timer set before the restart fires after it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const path = tempDb();
    const before = new SqliteStore({ path });
    const taskId = await startTask(before, { objective: "Remind me" });
    await runLeg({ store: before, agent: { model: new ScriptedModel([{ text: "Will do." }]) } }, taskId);
    const due = Date.now() + 150;
    await wakeAt(before, taskId, { at: due, text: "Reminder: stand-up in 5 minutes." });
    await before.close();

    const after = new SqliteStore({ path });
    expect(await after.listRunnable()).toEqual([]);
    vi.setSystemTime(due - 1);
    expect(await after.listRunnable()).toEqual([]);
    vi.setSystemTime(due);
    expect((await after.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    const model = new ScriptedModel([{ text: "Will do." }, { text: "Reminded." }], { mode: "by-transcript" });
    expect(await runLeg({ store: after, agent: { model } }, taskId)).toMatchObject({
      status: "completed",
      result: "Reminded.",
    });
    expect(model.requests[0]?.transcript.at(-1)).toMatchObject({
      role: "user",
      content: "<system-reminder>\nReminder: stand-up in 5 minutes.\n</system-reminder>",
    });
    await after.close();
  });

  it("an approval decided in another process is carried out after the restart, exactly once", async () => {
    const path = tempDb();
    let runs = 0;
    const deploy = defineTool({
      name: "deploy",
      description: "deploy",
      inputSchema: z.object({ env: z.string() }),
      needsApproval: true,
      execute: ({ env }) => `deployed to ${env} (${++runs})`,
    });
    const model = () =>
      new ScriptedModel([{ toolCalls: [{ name: "deploy", input: { env: "prod" } }] }, { text: "Deployed." }], {
        mode: "by-transcript",
      });
    const first = new SqliteStore({ path });
    const taskId = await startTask(first, { objective: "Ship it", principal: "acme" });
    expect(await runLeg({ store: first, agent: { model: model(), tools: [deploy] } }, taskId)).toMatchObject({
      parkedReason: "approval",
    });
    await first.close();

    const approver = new SqliteStore({ path });
    const pending = fold(await approver.read(taskId)).approvals[0];
    await decideApproval(approver, taskId, {
      callId: pending?.callId ?? "",
      digest: pending?.digest ?? "",
      decision: "approve",
      actor: { id: "alice", verified: true },
      principal: "acme",
    });
    await approver.close();

    const worker = new SqliteStore({ path });
    expect((await worker.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    expect(await runLeg({ store: worker, agent: { model: model(), tools: [deploy] } }, taskId)).toMatchObject({
      status: "completed",
    });
    expect(runs).toBe(1);
    await worker.close();
  });

  it("an image sent before the restart reaches the model from the file after it, byte for byte", async () => {
    const path = tempDb();
    const before = new SqliteStore({ path });
    const png = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    const taskId = await startTask(before, {
      objective: [
        { type: "text", text: "Describe it" },
        { type: "image", data: png, mediaType: "image/png" },
      ],
    });
    await before.close();

    const after = new SqliteStore({ path });
    const model = new ScriptedModel([{ text: "Stripes." }]);
    expect(await runLeg({ store: after, agent: { model } }, taskId)).toMatchObject({ status: "completed" });
    const blobs = [...(model.requests[0]?.blobs?.values() ?? [])];
    expect(blobs.map((bytes) => Array.from(bytes))).toEqual([Array.from(png)]);
    await after.close();
  });
  it("a child cancelled by a process that died before telling the parent wakes the parent after the restart", async () => {
    const path = tempDb();
    const deploy = defineTool({
      name: "deploy",
      description: "deploy",
      inputSchema: z.object({}),
      needsApproval: true,
      execute: () => "deployed",
    });
    const agent = (): Agent => ({
      model: new ScriptedModel(
        Array.from({ length: 10 }, () => (request: ModelRequest) => {
          const first = request.transcript[0];
          const turn = request.transcript.filter((entry) => entry.role === "assistant").length;
          if (first?.role === "user" && first.content === "Deploy it")
            return turn === 0 ? { toolCalls: [{ name: "deploy", input: {} }] } : { text: "Deployed." };
          if (turn === 0) return { toolCalls: [{ name: "delegate", input: { objective: "Deploy it" } }] };
          const answer = request.transcript.findLast((entry) => entry.role === "tool");
          return { text: answer?.role === "tool" ? answer.content : "?" };
        }),
      ),
      tools: [deploy],
      delegation: {},
    });
    const before = new SqliteStore({ path });
    const parent = await startTask(before, { objective: "Ship" });
    expect(await runLeg({ store: before, agent: agent() }, parent)).toMatchObject({ parkedReason: "child" });
    const [spawned] = (await before.read(parent)).filter((e) => e.type === "child_task");
    const child = spawned?.type === "child_task" ? spawned.childTaskId : "";
    // The canceller's task_cancelled commits, then its process dies before the parent hears of it.
    await expect(cancel(dyingStore(before, { appendsBeforeDeath: 0, when: "after" }), child)).rejects.toBeInstanceOf(
      SimulatedDeath,
    );
    await before.close();

    const after = new SqliteStore({ path });
    expect((await after.getTask(parent)).summary.runnable).toBe(false);
    const claims = await after.claimRunnable({ holder: { id: "worker" }, ttlMs: 5000, limit: 10 });
    expect(claims.map((claim) => claim.task.taskId)).toEqual([child]);
    const claim = claims[0];
    if (claim === undefined) throw new Error("no claim");
    // The child has nothing left to run: its leg only tells the parent.
    expect(await runLeg({ store: after, agent: agent() }, child, { lease: claim.lease })).toMatchObject({
      status: "cancelled",
    });
    expect((await after.listRunnable()).map((record) => record.taskId)).toEqual([parent]);
    expect(await runLeg({ store: after, agent: agent() }, parent)).toMatchObject({
      status: "completed",
      result: `The sub-agent's task ${child} was cancelled.`,
    });
    const results = (await after.read(parent)).filter((e) => e.type === "child_task" && e.phase === "result");
    expect(results).toHaveLength(1);
    expect(await after.listRunnable()).toEqual([]);
    await after.close();
  });
});
