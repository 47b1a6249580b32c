import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { requestResume } from "../harness/tasks/control.ts";
import type { Tool } from "../ports/tool.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { exportTask } from "./export-task.ts";
import { forkTask } from "./fork-task.ts";
import { importTask } from "./import-task.ts";
import { pinned, recordTrip } from "./recorded-task.fixture.ts";
import { formatReplay, replayTask } from "./replay-task.ts";
import { unstamped } from "./unstamped.ts";

describe("replayTask", () => {
  it("replays a recorded task byte for byte: tool calls, a steer, an approval, a child", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const before = JSON.stringify(await store.read(taskId));
    const report = await replayTask(store, taskId, { agent });
    expect(formatReplay(report)).toContain(": identical");
    expect(report).toMatchObject({ outcome: "identical", recordedTurns: 4 });
    expect(report.turns.map((t) => t.verdict)).toEqual(["identical", "identical", "identical", "identical"]);
    // Only read: the recording is untouched, and no tool ran (the weather tool would have steered).
    expect(JSON.stringify(await store.read(taskId))).toBe(before);
  });

  it("reports the first turn whose instructions differ, with the text the replay sent", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const report = await replayTask(store, taskId, { agent: { ...agent, instructions: "Always book the cheapest." } });
    expect(report).toMatchObject({ outcome: "diverged", divergence: { turn: 1, parts: ["system"] } });
    expect(report.divergence?.diff).toContain("Always book the cheapest.");
    expect(formatReplay(report)).toContain("first divergence at turn 1");
  });

  it("reports a tool schema change", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const tools = (agent.tools ?? []).map(
      (tool): Tool => (tool.name === "book" ? { ...tool, description: "Book any hotel" } : tool),
    );
    const report = await replayTask(store, taskId, { agent: { ...agent, tools } });
    expect(report.divergence).toMatchObject({ turn: 1, parts: ["tools"] });
    expect(report.divergence?.diff).toContain("Book any hotel");
  });

  it("reports a change in what a tool result becomes, at the entry and byte that differ", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const tools = (agent.tools ?? []).map(
      (tool): Tool => (tool.name === "weather" ? { ...tool, untrustedOutput: true } : tool),
    );
    const report = await replayTask(store, taskId, { agent: { ...agent, tools } });
    expect(report.divergence).toMatchObject({ turn: 2, parts: ["transcript"] });
    expect(report.divergence?.diff).toMatch(/transcript entry 3 of \d+ differs \(recorded: tool result of weather/);
    expect(report.divergence?.diff).toContain("- recorded:");
    expect(report.divergence?.diff).toContain("+ replayed:");
    expect(report.divergence?.diff).toContain("untrusted-");
  });

  it("reports a call the recording asked a person to approve and the replay ran without asking", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const tools = (agent.tools ?? []).map(
      (tool): Tool => (tool.name === "book" ? { ...tool, needsApproval: false } : tool),
    );
    const report = await replayTask(store, taskId, { agent: { ...agent, tools } });
    expect(report.outcome).toBe("diverged");
    expect(report.divergence?.parts).toEqual([]);
    expect(report.divergence?.diff).toMatch(
      /^the recording asked a person to approve book \(call-\d+-\d+\) before it ran; the replay did not ask$/,
    );
  });

  it("says unverified for turns recorded before requests were digested", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const v1 = (await store.read(taskId)).map((e) => {
      const event = unstamped(e);
      if (event.type !== "model_turn") return event;
      const { request: _request, ...rest } = event;
      return { ...rest, v: 1 } as TaskEvent;
    });
    const [created, ...more] = v1;
    if (created?.type !== "task_created") throw new Error("no task_created");
    const old = new MemoryStore();
    await old.createTask({ taskId, created, more });
    const report = await replayTask(old, taskId, { agent });
    expect(report.outcome).toBe("unverified");
    expect(report.turns.map((t) => t.verdict)).toEqual(["unverified", "unverified", "unverified", "unverified"]);
  });

  it("replays the same after export and import into another store", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const home = new MemoryStore();
    const { taskId: copy } = await importTask(home, await exportTask(store, taskId, { withChildren: true }));
    expect((await replayTask(home, copy, { agent })).outcome).toBe("identical");
  });

  it("replays a fork's own turns after its fork point", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const fork = await forkTask(store, taskId, { atSeq: 9, edits: { settings: { temperature: 0.5 } } });
    await requestResume(store, fork.taskId);
    const model = new ScriptedModel([{ text: "A different ending." }]);
    const outcome = await runLeg({ store, agent: { ...agent, model }, ...pinned() }, fork.taskId);
    expect(outcome.status).not.toBe("failed");
    const report = await replayTask(store, fork.taskId, { agent });
    expect(report).toMatchObject({ outcome: "identical", recordedTurns: 1 });
  });

  it("starts a leg where the recording did, though the host started it with no resume recorded", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const fork = await forkTask(store, taskId, { atSeq: 6 }); // after the first turn, parked:forked
    expect((await store.getTask(fork.taskId)).summary.runnable).toBe(false);
    // A host that calls runLeg on a parked task itself: the log has the leg, not why it began.
    const model = new ScriptedModel([{ text: "A different ending." }]);
    await runLeg({ store, agent: { ...agent, model }, ...pinned() }, fork.taskId);
    const events = await store.read(fork.taskId);
    expect(events.slice(fork.seq).some((e) => e.type === "resume_requested")).toBe(false);
    const report = await replayTask(store, fork.taskId, { agent });
    expect(report).toMatchObject({ outcome: "identical", recordedTurns: 1 });
  });

  it("is refused for another principal as for an unknown task", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    await expect(replayTask(store, taskId, { agent, principal: "mallory" })).rejects.toMatchObject({
      code: "TaskNotFound",
    });
  });
});
