// Restarts on a real file: the process that set a timer, parked for an approval or died mid-leg
// is gone; a new one opens the same SQLite file and carries every task on.
import { decideApproval, defineTool, fold, runLeg, startTask, wakeAt } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
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
});
