import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { ModelRequest } from "../../ports/model.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { cancel } from "../tasks/control.ts";
import { startTask } from "../tasks/start-task.ts";
import { decideApproval } from "../tools/approvals.ts";
import { defineTool } from "../tools/define-tool.ts";
import { childTaskId, startChildTask, steerChild } from "./child-tasks.ts";

/** One model for parent and children: each task's script is chosen by its objective. */
function byObjective(scripts: Record<string, ScriptedTurn[]>): ScriptedModel {
  return new ScriptedModel(
    [
      ...Array.from({ length: 20 }, () => (request: ModelRequest) => {
        const first = request.transcript[0];
        const objective = first?.role === "user" ? first.content : "";
        const script = scripts[objective] ?? [];
        const turn = request.transcript.filter((e) => e.role === "assistant").length;
        return script[turn] ?? { text: `(no turn ${turn} for "${objective}")` };
      }),
    ],
    { mode: "sequential" },
  );
}

const lastTool = (request: ModelRequest | undefined) => request?.transcript.filter((e) => e.role === "tool").at(-1);

describe("delegation", () => {
  it("wait: the delegate call resolves with the child's final answer; the child has its own log", async () => {
    const store = new MemoryStore();
    const model = byObjective({
      "Write the report": [
        { toolCalls: [{ name: "delegate", input: { objective: "Find three sources" } }] },
        { text: "Report written from the sources." },
      ],
      "Find three sources": [{ text: "Sources: A, B, C." }],
    });
    const taskId = await startTask(store, { objective: "Write the report", principal: "acme" });
    const outcome = await runLeg({ store, agent: { model, delegation: {} } }, taskId);
    expect(outcome).toMatchObject({ status: "completed", result: "Report written from the sources." });
    const childId = childTaskId(taskId, "call-1-1");
    const child = await store.getTask(childId);
    expect(child).toMatchObject({ principal: "acme", parentTaskId: taskId, summary: { status: "completed" } });
    const parent = fold(await store.read(taskId));
    expect(parent.children).toEqual([
      { childTaskId: childId, callId: "call-1-1", status: "completed", result: "Sources: A, B, C." },
    ]);
    expect(parent.transcript.find((e) => e.role === "tool")).toMatchObject({
      status: "ok",
      content: "Sources: A, B, C.",
    });
    expect(model.requests[0]?.tools.map((t) => t.name)).toContain("delegate");
  });

  it("a child's failure reaches the parent as a tool error, not a crash", async () => {
    const store = new MemoryStore();
    const model = byObjective({
      Parent: [{ toolCalls: [{ name: "delegate", input: { objective: "Doomed" } }] }, { text: "Handled the failure." }],
      Doomed: [{ error: { message: "provider down", code: "server_error" } }],
    });
    const taskId = await startTask(store, { objective: "Parent" });
    expect(await runLeg({ store, agent: { model, delegation: {} } }, taskId)).toMatchObject({ status: "completed" });
    expect(lastTool(model.requests.at(-1))).toMatchObject({
      status: "error",
      content: expect.stringContaining("failed: provider down"),
    });
  });

  it("continue: the parent goes on at once and is woken by the result", async () => {
    const store = new MemoryStore();
    const model = byObjective({
      Parent: [
        { toolCalls: [{ name: "delegate", input: { objective: "Background job", wait: false } }] },
        { text: "Started it." },
        { text: "Got the background result." },
      ],
      "Background job": [{ text: "Job output 42." }],
    });
    const taskId = await startTask(store, { objective: "Parent" });
    const agent: Agent = { model, delegation: { runChildren: false } };
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ status: "completed", result: "Started it." });
    const childId = childTaskId(taskId, "call-1-1");
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([childId]);
    // A worker runs the child; its end wakes the parent.
    await runLeg({ store, agent }, childId);
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({
      status: "completed",
      result: "Got the background result.",
    });
    const wake = model.requests.at(-1)?.transcript.at(-1);
    expect(wake).toMatchObject({
      role: "user",
      content: `<system-reminder>\nSub-agent task ${childId} completed: Job output 42.\n</system-reminder>`,
    });
  });

  it("enforces depth and fan-out limits", async () => {
    const store = new MemoryStore();
    const model = byObjective({
      Root: [{ toolCalls: [{ name: "delegate", input: { objective: "Level 1" } }] }, { text: "root done" }],
      "Level 1": [{ toolCalls: [{ name: "delegate", input: { objective: "Level 2" } }] }, { text: "level 1 done" }],
      Many: [
        { toolCalls: [1, 2, 3].map((i) => ({ name: "delegate", input: { objective: `Level ${i}x` } })) },
        { text: "many done" },
      ],
    });
    const root = await startTask(store, { objective: "Root" });
    await runLeg({ store, agent: { model, delegation: { maxDepth: 1 } } }, root);
    const level1 = fold(await store.read(childTaskId(root, "call-1-1")));
    expect(level1.transcript.find((e) => e.role === "tool")).toMatchObject({
      status: "error",
      content: "Delegation refused: tasks may delegate at most 1 level deep.",
    });
    const many = await startTask(store, { objective: "Many" });
    await runLeg({ store, agent: { model, delegation: { maxChildren: 2 } } }, many);
    const results = fold(await store.read(many)).transcript.filter((e) => e.role === "tool");
    // Results are matched to calls by id; the refused one is answered at once, the others when their child ends.
    const status = (n: number) => results.find((e) => e.role === "tool" && e.callId.endsWith(`-${n}`));
    expect([status(1), status(2), status(3)].map((e) => e?.role === "tool" && e.status)).toEqual(["ok", "ok", "error"]);
  });

  it("a child's approval surfaces in the parent's log; the parent waits, then gets the answer", async () => {
    const store = new MemoryStore();
    const risky = defineTool({
      name: "deploy",
      description: "deploy",
      inputSchema: z.object({}),
      needsApproval: true,
      execute: () => "deployed",
    });
    const model = byObjective({
      Ship: [{ toolCalls: [{ name: "delegate", input: { objective: "Deploy it" } }] }, { text: "Shipped." }],
      "Deploy it": [{ toolCalls: [{ name: "deploy", input: {} }] }, { text: "Deployed v2." }],
    });
    const agent: Agent = { model, tools: [risky], delegation: {} };
    const taskId = await startTask(store, { objective: "Ship", principal: "acme" });
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ status: "parked", parkedReason: "child" });
    const note = (await store.read(taskId)).find((e) => e.type === "engine_note" && e.kind === "child_approval");
    const childId = childTaskId(taskId, "call-1-1");
    const pending = fold(await store.read(childId)).approvals[0];
    expect(note).toMatchObject({
      data: { childTaskId: childId, approvals: [{ callId: pending?.callId, name: "deploy", digest: pending?.digest }] },
    });
    await decideApproval(store, childId, {
      callId: pending?.callId ?? "",
      digest: pending?.digest ?? "",
      decision: "approve",
      actor: { id: "alice", verified: true },
      principal: "acme",
    });
    // The child resumes on its own (a worker, another process); its end brings the parent back.
    expect(await runLeg({ store, agent }, childId)).toMatchObject({ status: "completed" });
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ status: "completed", result: "Shipped." });
    expect(lastTool(model.requests.at(-1))).toMatchObject({ status: "ok", content: "Deployed v2." });
  });

  it("cancelling a parent cancels its children", async () => {
    const store = new MemoryStore();
    const risky = defineTool({
      name: "deploy",
      description: "deploy",
      inputSchema: z.object({}),
      needsApproval: true,
      execute: () => "deployed",
    });
    const model = byObjective({
      Ship: [{ toolCalls: [{ name: "delegate", input: { objective: "Deploy it" } }] }],
      "Deploy it": [{ toolCalls: [{ name: "deploy", input: {} }] }],
    });
    const taskId = await startTask(store, { objective: "Ship" });
    await runLeg({ store, agent: { model, tools: [risky], delegation: {} } }, taskId);
    await cancel(store, taskId, { reason: "no longer needed" });
    expect((await store.getTask(childTaskId(taskId, "call-1-1"))).summary.status).toBe("cancelled");
    expect(await store.listRunnable()).toEqual([]);
  });

  it("a parent steers its child on the operator lane, in the operator frame", async () => {
    const store = new MemoryStore();
    const parent = await startTask(store, { objective: "Parent" });
    const child = await startTask(store, { objective: "Child", parentTaskId: parent });
    const stranger = await startTask(store, { objective: "Other" });
    await steerChild(store, child, { parentTaskId: parent, text: "Focus on the EU data only." });
    await expect(steerChild(store, stranger, { parentTaskId: parent, text: "x" })).rejects.toMatchObject({
      code: "Forbidden",
    });
    const model = new ScriptedModel([{ text: "ok" }]);
    await runLeg({ store, agent: { model } }, child);
    const last = model.requests[0]?.transcript.at(-1);
    expect(last).toMatchObject({
      role: "user",
      content: `[These messages arrived while the task was paused.]\n\n[Message from your operator, the agent that delegated this task to you:]\n[from "${parent}"]\nFocus on the EU data only.`,
    });
  });

  it("a child's budget is carved from what is left of its parent's; what it spends counts for the parent", async () => {
    const store = new MemoryStore();
    const big = { inputTokens: 1500, outputTokens: 500 };
    const model = byObjective({
      Parent: [
        { toolCalls: [{ name: "delegate", input: { objective: "Child" } }], usage: big },
        { text: "parent done", usage: big },
      ],
      Child: [
        { toolCalls: [{ name: "missing", input: {} }], usage: big },
        { toolCalls: [{ name: "missing", input: {} }], usage: big },
        { text: "child done" },
      ],
    });
    const taskId = await startTask(store, { objective: "Parent" });
    const outcome = await runLeg({ store, agent: { model, delegation: {}, budget: { maxTokens: 5000 } } }, taskId);
    const childId = childTaskId(taskId, "call-1-1");
    const child = fold(await store.read(childId));
    // 5,000 less the parent's first turn (2,000): the child may use 3,000, and stops after two turns.
    expect(child.metadata?.budget).toEqual({ maxTokens: 3000 });
    expect(child.summary).toMatchObject({ status: "parked", parkedReason: "budget", parkedDetail: "tokens" });
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "child" });
  });

  it("host code can start a child; its result wakes the parent", async () => {
    const store = new MemoryStore();
    const model = byObjective({
      Parent: [{ text: "waiting" }, { text: "Got it." }],
      "Side job": [{ text: "Side result." }],
    });
    const parent = await startTask(store, { objective: "Parent" });
    await runLeg({ store, agent: { model } }, parent);
    const child = await startChildTask(store, parent, { objective: "Side job" });
    expect((await store.getTask(child)).parentTaskId).toBe(parent);
    await runLeg({ store, agent: { model } }, child);
    expect(await runLeg({ store, agent: { model } }, parent)).toMatchObject({ status: "completed", result: "Got it." });
    expect(fold(await store.read(parent)).children).toEqual([
      { childTaskId: child, status: "completed", result: "Side result." },
    ]);
  });
});
