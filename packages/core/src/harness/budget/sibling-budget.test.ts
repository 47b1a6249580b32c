// Issue 22: children started in the same model turn must split what is left of their parent's
// budget, not each be carved all of it. The parent has maxTokens 500 and spends 15 on the turn that
// delegates twice; each child would spend a few tokens in and 300 out if nothing stopped it (as far
// as its maxOutputTokens lets it: a provider honours that bound).
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold, outstandingReservations } from "../../core/fold.ts";
import type { ModelRequest } from "../../ports/model.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { startChildTask } from "../delegation/child-tasks.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { budgetFromMetadata } from "./budget.ts";

/**
 * The provider's count of a request's input: a token per four characters of what the user wrote,
 * never more than the harness estimates (so this test sees no estimate error).
 */
function inputTokens(request: ModelRequest): number {
  let chars = 0;
  for (const entry of request.transcript) if (entry.role === "user") chars += entry.content.length;
  return Math.ceil(chars / 4);
}

/** A child's one answer: its input, and 300 tokens out unless the call's maxOutputTokens is lower. */
function workerTurn(request: ModelRequest): ScriptedTurn {
  return {
    text: "Done.",
    usage: { inputTokens: inputTokens(request), outputTokens: Math.min(300, request.maxOutputTokens ?? 300) },
  };
}

function parentTurns(waitForB = true) {
  return (request: ModelRequest): ScriptedTurn => {
    const turns = request.transcript.filter((e) => e.role === "assistant").length;
    if (turns > 0) return { text: "Both done.", usage: { inputTokens: 10, outputTokens: 5 } };
    return {
      toolCalls: [
        { name: "delegate", input: { objective: "Part A", agent: "worker" } },
        { name: "delegate", input: { objective: "Part B", agent: "worker", wait: waitForB } },
      ],
      usage: { inputTokens: 10, outputTokens: 5 },
    };
  };
}
const parentTurn = parentTurns();

async function familySpend(store: MemoryStore, taskId: string): Promise<number> {
  let total = 0;
  for (const event of await store.read(taskId)) {
    if (event.type === "model_turn") total += event.usage.inputTokens + event.usage.outputTokens;
    if (event.type === "child_task" && event.phase === "spawned") total += await familySpend(store, event.childTaskId);
  }
  return total;
}

describe("siblings started in one turn", () => {
  it("split what is left of the parent's tokens: the family never spends more than the limit", async () => {
    const store = new MemoryStore();
    const worker: Agent = {
      name: "worker",
      standingInstructions: false,
      model: new ScriptedModel(Array.from({ length: 10 }, () => workerTurn)),
    };
    const agent: Agent = {
      standingInstructions: false,
      model: new ScriptedModel(Array.from({ length: 10 }, () => parentTurn)),
      delegation: { agents: { worker } },
      budget: { maxTokens: 500 },
    };
    const taskId = await startTask(store, { objective: "Do A and B" });
    await runLeg({ store, agent }, taskId);
    const parent = fold(await store.read(taskId));
    expect(parent.children).toHaveLength(2);
    const carves: number[] = [];
    for (const child of parent.children) {
      const state = fold(await store.read(child.childTaskId));
      const budget = state.metadata?.budget;
      carves.push(
        typeof budget === "object" && budget !== null && !Array.isArray(budget) ? Number(budget.maxTokens) : 0,
      );
    }
    // Before the ledger each child was carved the whole 485, and the family spent 15 + 2 × 302.
    expect(carves.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(485);
    expect(await familySpend(store, taskId)).toBeLessThanOrEqual(500);
    // The shares are in the parent's log, on the spawns, and both are released by the results.
    const spawns = (await store.read(taskId)).filter((e) => e.type === "child_task" && e.phase === "spawned");
    expect(spawns.map((e) => (e.type === "child_task" ? [e.v, e.reserved] : []))).toEqual([
      [2, { tokens: 242 }],
      [2, { tokens: 242 }],
    ]);
    expect(carves).toEqual([242, 242]);
    expect(outstandingReservations(parent).tokens).toBe(0);
  });

  it("a child not waited for holds its share too, and the parent keeps one for itself", async () => {
    const store = new MemoryStore();
    const worker: Agent = {
      name: "worker",
      standingInstructions: false,
      model: new ScriptedModel(Array.from({ length: 10 }, () => workerTurn)),
    };
    const agent: Agent = {
      standingInstructions: false,
      model: new ScriptedModel(Array.from({ length: 10 }, () => parentTurns(false))),
      delegation: { agents: { worker }, runChildren: false },
      budget: { maxTokens: 500 },
    };
    const taskId = await startTask(store, { objective: "Do A and B" });
    await runLeg({ store, agent }, taskId);
    // 485 left in three shares: Part A, Part B (not waited for) and the parent's own.
    const parent = fold(await store.read(taskId));
    expect(parent.children.map((c) => c.reserved)).toEqual([{ tokens: 161 }, { tokens: 161 }]);
    expect(outstandingReservations(parent).tokens).toBe(322);
  });

  it("counts the tree's turns with turnsScope: tree, carving them like tokens", async () => {
    const store = new MemoryStore();
    const worker: Agent = {
      name: "worker",
      standingInstructions: false,
      model: new ScriptedModel(
        Array.from({ length: 20 }, () => (request: ModelRequest) => {
          const turns = request.transcript.filter((e) => e.role === "assistant").length;
          return turns < 5 ? { toolCalls: [{ name: "missing", input: {} }] } : { text: "Done." };
        }),
      ),
    };
    const agent: Agent = {
      standingInstructions: false,
      model: new ScriptedModel(Array.from({ length: 10 }, () => parentTurn)),
      delegation: { agents: { worker } },
      budget: { maxTurns: 7, turnsScope: "tree" },
    };
    const taskId = await startTask(store, { objective: "Do A and B" });
    const outcome = await runLeg({ store, agent }, taskId);
    const parent = fold(await store.read(taskId));
    // 6 turns left after the first: 3 each. Each child parks at its 3; the parent waits for them.
    expect(parent.children.map((c) => c.reserved)).toEqual([{ turns: 3 }, { turns: 3 }]);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "child" });
    for (const child of parent.children) {
      const state = fold(await store.read(child.childTaskId));
      expect(state.metadata?.budget).toEqual({ maxTurns: 3, turnsScope: "tree" });
      expect(state.summary).toMatchObject({ sessionSeq: 3, parkedReason: "budget", parkedDetail: "turns" });
    }
  });
});

describe("a child that ends before a child of its own", () => {
  it("reports what that child still holds, and may spend nothing more once it has reported", async () => {
    const store = new MemoryStore();
    const step = (request: ModelRequest): ScriptedTurn => {
      const first = request.transcript[0];
      const objective = first?.role === "user" ? first.content : "";
      const turns = request.transcript.filter((e) => e.role === "assistant").length;
      const usage = { inputTokens: 10, outputTokens: 10 };
      if (objective === "Root" && turns === 0)
        return { toolCalls: [{ name: "delegate", input: { objective: "Middle" }, callId: "mid" }], usage };
      if (objective === "Middle" && turns === 0)
        return { toolCalls: [{ name: "delegate", input: { objective: "Leaf", wait: false }, callId: "leaf" }], usage };
      return { text: `${objective} done.`, usage };
    };
    const agent: Agent = {
      standingInstructions: false,
      model: new ScriptedModel(Array.from({ length: 20 }, () => step)),
      delegation: { runChildren: false },
      budget: { maxTokens: 1000 },
    };
    const rootId = await startTask(store, { objective: "Root" });
    await runLeg({ store, agent }, rootId);
    const middleId = `${rootId}~mid`;
    // Middle delegates Leaf without waiting (half of the 960 it has left each), answers, and reports its end.
    await runLeg({ store, agent }, middleId);
    const root = fold(await store.read(rootId));
    expect(root.children[0]).toMatchObject({ status: "completed", reserved: { tokens: 980 }, held: { tokens: 480 } });
    expect(outstandingReservations(root).tokens).toBe(480);
    // Leaf's result wakes Middle, whose share was closed by its report: it parks at once.
    await runLeg({ store, agent }, `${middleId}~leaf`);
    expect(await runLeg({ store, agent }, middleId)).toMatchObject({ status: "parked", parkedReason: "budget" });
    const middle = await store.read(middleId);
    expect(middle.filter((e) => e.type === "model_turn")).toHaveLength(2);
    expect(middle.find((e) => e.type === "engine_note" && e.kind === "budget")).toMatchObject({
      text: "The task ended and reported to its parent task, which took what it spent and released the rest of its share: it has no budget left.",
    });
  });
});

describe("a child a host starts with a budget", () => {
  it("holds that budget against the parent's until it ends", async () => {
    const store = new MemoryStore();
    const parentId = await startTask(store, { objective: "Parent" });
    const childId = await startChildTask(store, parentId, { objective: "Child", budget: { maxTokens: 100 } });
    const spawn = (await store.read(parentId)).find((e) => e.type === "child_task");
    expect(spawn).toMatchObject({ v: 2, phase: "spawned", childTaskId: childId, reserved: { tokens: 100 } });
    expect(outstandingReservations(fold(await store.read(parentId))).tokens).toBe(100);
    const child = fold(await store.read(childId));
    expect(budgetFromMetadata(child.metadata)).toEqual({ maxTokens: 100 });
    const agent: Agent = { standingInstructions: false, model: new ScriptedModel([{ text: "Done." }]) };
    expect(await runLeg({ store, agent }, childId)).toMatchObject({ status: "completed" });
    expect(outstandingReservations(fold(await store.read(parentId))).tokens).toBe(0);
  });
});
