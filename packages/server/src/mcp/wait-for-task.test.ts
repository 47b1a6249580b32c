// A wait reports every event through onEvent, also when the task settled before the wait began
// (an instant model finishes a task before the tool call gets to wait on it).
import { MemoryStore, runLeg, type StoredEvent, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { forkTask } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import type { Caller } from "../ingress/caller.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";
import { settled, waitForTask } from "./wait-for-task.ts";

const caller: Caller = {
  principal: "acme",
  actor: { id: "ana", verified: true, issuer: "test" },
  roles: new Set(),
  tokenId: "t1",
  stillValid: async () => true,
};

describe("waitForTask", () => {
  it("reports the events of a task that had already completed, up to its last", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Say done", principal: "acme" });
    await runLeg({ store, agent: { model: new ScriptedModel([{ text: "Done." }]) } }, taskId);
    const seen: StoredEvent[] = [];
    const record = await waitForTask({ store } as unknown as TaskDeps, caller, taskId, {
      signal: new AbortController().signal,
      onEvent: (event) => {
        seen.push(event);
      },
    });
    expect(record.summary.status).toBe("completed");
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: record.lastSeq }, (_, index) => index + 1));
    expect(seen.map((event) => event.type)).toContain("task_completed");
  });

  it("settles on a fork parked where it was copied (it runs on only when asked), not on one with work", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Say done", principal: "acme" });
    await runLeg({ store, agent: { model: new ScriptedModel([{ text: "Done." }]) } }, taskId);
    const parked = await forkTask(store, taskId, { atSeq: 5 });
    const record = await waitForTask({ store } as unknown as TaskDeps, caller, parked.taskId, {
      signal: AbortSignal.timeout(5000),
    });
    expect(record.summary).toMatchObject({ status: "parked", parkedReason: "forked" });
    expect(settled(record)).toBe(true);
    // A fork whose edit sends an input has work: a worker runs it, so a wait goes on.
    const edited = await forkTask(store, taskId, { edits: { input: { seq: 2, text: "Say it again" } } });
    expect(settled(await store.getTask(edited.taskId))).toBe(false);
  });
});
