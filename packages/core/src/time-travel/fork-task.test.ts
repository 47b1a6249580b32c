import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { fold } from "../core/fold.ts";
import { DETACHED_CHILD_CONTENT } from "../core/fold-forked.ts";
import type { Agent } from "../harness/agent.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { requestResume } from "../harness/tasks/control.ts";
import { startTask } from "../harness/tasks/start-task.ts";
import { decideApproval } from "../harness/tools/approvals.ts";
import type { Tool } from "../ports/tool.ts";
import type { StoredEvent } from "../protocol/task-event.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { forkTask } from "./fork-task.ts";
import { pinned, recordTrip, tripModel, tripTools } from "./recorded-task.fixture.ts";
import { unstamped } from "./unstamped.ts";

const seqOf = (events: readonly StoredEvent[], test: (e: StoredEvent) => boolean) =>
  events.find(test)?.seq ?? Number.NaN;

/** The trip agent with tools that count their runs. */
function countingAgent(store: MemoryStore, taskId: () => string): { agent: Agent; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const tools = tripTools(store, taskId).map(
    (tool): Tool => ({
      ...tool,
      execute: (input, ctx) => {
        runs.set(tool.name, (runs.get(tool.name) ?? 0) + 1);
        return tool.execute(input as never, ctx);
      },
    }),
  );
  return { agent: { name: "trip", model: tripModel(), tools, delegation: {} }, runs };
}

describe("forkTask", () => {
  it("forks at every seq: the prefix is the source's, the source unchanged, the fork parked at a boundary", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const source = await store.read(taskId);
    const before = JSON.stringify(source);
    for (const event of source) {
      const fork = await forkTask(store, taskId, { atSeq: event.seq });
      expect(fork.seq).toBeLessThanOrEqual(event.seq);
      const copied = await store.read(fork.taskId);
      expect(copied.slice(0, fork.seq).map(unstamped)).toEqual(source.slice(0, fork.seq).map(unstamped));
      expect(copied[fork.seq]).toMatchObject({ type: "task_forked", source: { taskId, seq: fork.seq } });
      expect(copied).toHaveLength(fork.seq + 1);
      const state = fold(copied);
      // Never half a turn: no applied input without its entry, no call of an open leg in doubt.
      expect(state.applying).toBeUndefined();
      expect(state.openToolCalls.filter((call) => call.started)).toEqual([]);
      const record = await store.getTask(fork.taskId);
      expect(record).toMatchObject({ principal: "acme", summary: { forkedFrom: { taskId, seq: fork.seq } } });
      expect(["parked", "completed"]).toContain(record.summary.status);
      if (fork.seq !== event.seq) expect(fork.requestedSeq).toBe(event.seq);
    }
    expect(JSON.stringify(await store.read(taskId))).toBe(before);
  });

  it("moves a cut inside a tool call back to the step before it", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    const started = seqOf(events, (e) => e.type === "tool_call_started");
    const fork = await forkTask(store, taskId, { atSeq: started });
    expect(fork).toMatchObject({ seq: started - 1, requestedSeq: started });
    expect((await store.getTask(fork.taskId)).summary).toMatchObject({ status: "parked", parkedReason: "forked" });
  });

  it("runs on when resumed, and never runs again a call whose result it copied", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    const afterWeather = seqOf(events, (e) => e.type === "tool_result" && e.name === "weather");
    const fork = await forkTask(store, taskId, { atSeq: afterWeather });
    const { agent, runs } = countingAgent(store, () => fork.taskId);
    await requestResume(store, fork.taskId);
    const first = await runLeg({ store, agent, ...pinned() }, fork.taskId);
    expect(first.status).toBe("parked"); // the booking waits for its approval again, in the fork
    expect(runs.get("weather")).toBeUndefined();
    const state = fold(await store.read(fork.taskId));
    expect(state.transcript.filter((e) => e.role === "tool" && e.name === "weather")).toHaveLength(1);
  });

  it("never spends the source's approval: a call approved but not run waits for a decision again", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    const decided = events.find((e) => e.type === "approval_decided");
    if (decided?.type !== "approval_decided") throw new Error("no decision");
    const fork = await forkTask(store, taskId, { atSeq: decided.seq });
    expect(fork.seq).toBe(decided.seq);
    const marker = (await store.read(fork.taskId)).find((e) => e.type === "task_forked");
    expect(marker).toMatchObject({ reopenedApprovals: [decided.callId] });
    const record = await store.getTask(fork.taskId);
    expect(record.summary).toMatchObject({
      status: "parked",
      parkedReason: "approval",
      openApprovals: [decided.callId],
      runnable: false,
    });
    // Even a resume request does not run it: the booking waits for a person, in the fork.
    const { agent, runs } = countingAgent(store, () => fork.taskId);
    await requestResume(store, fork.taskId);
    expect((await store.getTask(fork.taskId)).summary.runnable).toBe(false);
    const outcome = await runLeg({ store, agent, ...pinned() }, fork.taskId);
    expect(outcome.status).toBe("parked");
    expect(runs.get("book")).toBeUndefined();
    const state = fold(await store.read(fork.taskId));
    expect(state.approvals).toEqual([expect.objectContaining({ callId: decided.callId })]);
    expect(state.approvals[0]?.decision).toBeUndefined();
    // A decision made in the fork runs it there, once.
    await decideApproval(store, fork.taskId, {
      callId: decided.callId,
      digest: decided.digest,
      decision: "approve",
      actor: { id: "bob", verified: true },
      principal: "acme",
    });
    expect((await runLeg({ store, agent, ...pinned() }, fork.taskId)).status).toBe("completed");
    expect(runs.get("book")).toBe(1);
  });

  it("drops the source's tool-for-task grants: the fork asks for the tool again", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    const decided = events.find((e) => e.type === "approval_decided");
    if (decided?.type !== "approval_decided") throw new Error("no decision");
    // The same log, but the decision granted the tool for the whole task.
    const granted = events.map((e) => (e.seq === decided.seq ? { ...decided, scope: "tool-for-task" as const } : e));
    const [created, ...more] = granted.map(unstamped);
    if (created?.type !== "task_created") throw new Error("no creation");
    await store.createTask({ taskId: "granted", created, more });
    expect(fold(await store.read("granted")).grantedTools).toEqual(["book"]);
    const fork = await forkTask(store, "granted");
    const state = fold(await store.read(fork.taskId));
    expect(state.grantedTools).toEqual([]);
    expect((await store.read(fork.taskId)).at(-1)).toMatchObject({ type: "task_forked", revokedGrants: ["book"] });
  });

  it("replaces a person's input with a new one attributed to who forks, the original kept in the source", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    const steer = seqOf(events, (e) => e.type === "human_input" && e.text === "Prefer a quiet street.");
    const bob = { id: "bob", verified: true };
    const fork = await forkTask(store, taskId, {
      edits: { input: { seq: steer, text: "Prefer a sea view." } },
      actor: bob,
    });
    expect(fork.seq).toBeLessThan(steer);
    const copied = await store.read(fork.taskId);
    const marker = copied.find((e) => e.type === "task_forked");
    expect(marker).toMatchObject({ replacedInput: { seq: steer }, actor: bob });
    expect(copied.at(-1)).toMatchObject({
      type: "human_input",
      delivery: "parked",
      text: "Prefer a sea view.",
      actor: bob,
      source: "user",
    });
    expect(copied.some((e) => e.type === "human_input" && e.text === "Prefer a quiet street.")).toBe(false);
    const record = await store.getTask(fork.taskId);
    expect(record.summary).toMatchObject({ status: "parked", runnable: true });
  });

  it("replaces a tool result: the fork's model sees the new one, and the tool does not run", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    const weather = events.find((e) => e.type === "tool_result" && e.name === "weather");
    if (weather?.type !== "tool_result") throw new Error("no weather result");
    const fork = await forkTask(store, taskId, {
      edits: { toolResult: { callId: weather.callId, content: "Storms all week" } },
    });
    expect(fork.seq).toBe(weather.seq - 1);
    const { agent, runs } = countingAgent(store, () => fork.taskId);
    const model = new ScriptedModel([{ text: "Let us wait for better weather." }]);
    await requestResume(store, fork.taskId);
    const outcome = await runLeg({ store, agent: { ...agent, model }, ...pinned() }, fork.taskId);
    expect(outcome.status).toBe("completed");
    expect(runs.get("weather")).toBeUndefined();
    expect(model.requests[0]?.transcript.find((e) => e.role === "tool")).toMatchObject({ content: "Storms all week" });
  });

  it("records the model and settings edits, which the fork's requests then carry", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const fork = await forkTask(store, taskId, {
      atSeq: 5,
      edits: { model: "openai:gpt-5", settings: { temperature: 0.2, maxOutputTokens: 300 } },
    });
    const state = fold(await store.read(fork.taskId));
    expect(state).toMatchObject({ model: "openai:gpt-5", settings: { temperature: 0.2, maxOutputTokens: 300 } });
    const model = new ScriptedModel([{ text: "Done." }]);
    await requestResume(store, fork.taskId);
    await runLeg({ store, agent: { model, tools: [] } }, fork.taskId);
    expect(model.requests[0]).toMatchObject({ temperature: 0.2, maxOutputTokens: 300 });
  });

  it("forks a fork: the lineage names the fork, the prefix is the fork's", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const first = await forkTask(store, taskId, { atSeq: 12 });
    const second = await forkTask(store, first.taskId);
    const a = await store.read(first.taskId);
    const b = await store.read(second.taskId);
    expect(b.slice(0, a.length).map(unstamped)).toEqual(a.map(unstamped));
    expect((await store.getTask(second.taskId)).summary.forkedFrom).toEqual({
      taskId: first.taskId,
      seq: a.length,
      origin: "fork",
    });
  });

  it("detaches a child still running at the cut: its call gets an answer, the fork waits for nothing", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ toolCalls: [{ name: "delegate", input: { objective: "Slow research" } }] }]);
    const taskId = await startTask(store, { objective: "Research", principal: "acme" });
    const parked = await runLeg({ store, agent: { model, delegation: { runChildren: false } } }, taskId);
    expect(parked).toMatchObject({ status: "parked" });
    const fork = await forkTask(store, taskId);
    expect(fork.detachedChildren).toHaveLength(1);
    const state = fold(await store.read(fork.taskId));
    expect(state.children).toEqual([]);
    expect(state.transcript.at(-1)).toMatchObject({
      role: "tool",
      status: "interrupted",
      content: DETACHED_CHILD_CONTENT,
    });
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "forked" });
    // The child still reports to the source, which is untouched.
    expect((await store.getTask(taskId)).summary).toMatchObject({ status: "parked", parkedReason: "child" });
  });

  it("forks a child task as a root task of its own", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const child = (await store.read(taskId)).find((e) => e.type === "child_task");
    if (child?.type !== "child_task") throw new Error("no child");
    const fork = await forkTask(store, child.childTaskId);
    const record = await store.getTask(fork.taskId);
    expect(record.parentTaskId).toBeUndefined();
    expect(record.summary.parentReport).toBeUndefined();
    const marker = (await store.read(fork.taskId)).find((e) => e.type === "task_forked");
    expect(marker).toMatchObject({ sourceParentTaskId: taskId });
  });

  it("counts none of the copied turns against the principal's usage", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const before = await store.usage({ principal: "acme", sinceMs: 0 });
    await forkTask(store, taskId);
    const after = await store.usage({ principal: "acme", sinceMs: 0 });
    expect(after.buckets).toEqual(before.buckets);
  });

  it("is refused for another principal as for an unknown task, and for a fork point or edit that does not fit", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const last = (await store.getTask(taskId)).lastSeq;
    await expect(forkTask(store, taskId, { principal: "mallory" })).rejects.toMatchObject({ code: "TaskNotFound" });
    await expect(forkTask(store, "no-such-task")).rejects.toMatchObject({ code: "TaskNotFound" });
    for (const atSeq of [0, -1, 1.5, last + 1, Number.NaN])
      await expect(forkTask(store, taskId, { atSeq })).rejects.toMatchObject({ code: "InvalidInput" });
    const bad = [
      { input: { seq: 1, text: "x" } },
      { input: { seq: 3, text: "x" } },
      { toolResult: { callId: "nope", content: "x" } },
      { settings: { temperature: "hot" } as never },
      { model: "" },
      { input: { seq: 2, text: "x" }, toolResult: { callId: "call-1-1", content: "x" } },
    ];
    for (const edits of bad)
      await expect(forkTask(store, taskId, { edits })).rejects.toMatchObject({ code: "InvalidInput" });
    const count = (await store.listTasks({ principal: "acme" })).tasks.length;
    expect(count).toBe(2); // the trip and its child: no refused fork left anything
  });
});
