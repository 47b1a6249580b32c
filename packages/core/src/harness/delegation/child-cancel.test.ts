// A child cancelled on its own (its parent not) is a child result like any other end: recorded
// for the parent, which becomes runnable, exactly once — also when the process that wrote the
// child's end dies before telling the parent.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { Store } from "../../ports/store.ts";
import { isSemaError } from "../../protocol/errors.ts";
import { dyingStore, SimulatedDeath } from "../../testing/dying-store.ts";
import { make } from "../../testing/event-factories.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { cancel } from "../tasks/control.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { childTaskId, reportEnd, startChildTask } from "./child-tasks.ts";

/** A tool whose every call waits for a person: a child calling it parks, so it can be cancelled. */
const deploy = defineTool({
  name: "deploy",
  description: "deploy",
  inputSchema: z.object({}),
  needsApproval: true,
  execute: () => "deployed",
});

/** Stateless scripts chosen by objective: every leg continues where its task is. */
function agent(wait: boolean): Agent {
  const scripts: Record<string, ScriptedTurn[]> = {
    Parent: [
      { toolCalls: [{ name: "delegate", input: { objective: "Deploy it", wait } }] },
      { text: wait ? "Handled the cancel." : "Started it." },
      { text: "Heard of the cancel." },
    ],
    "Deploy it": [{ toolCalls: [{ name: "deploy", input: {} }] }, { text: "Deployed." }],
  };
  const step = (request: ModelRequest): ScriptedTurn => {
    const first = request.transcript[0];
    const script = scripts[first?.role === "user" ? first.content : ""] ?? [];
    return script[request.transcript.filter((e) => e.role === "assistant").length] ?? { text: "?" };
  };
  return { model: new ScriptedModel(Array.from({ length: 50 }, () => step)), tools: [deploy], delegation: {} };
}

/** A parent whose child is parked on an approval: waited for (`parked:child`) or not. */
async function parentWithParkedChild(store: Store, wait: boolean): Promise<{ parent: string; child: string }> {
  const parent = await startTask(store, { objective: "Parent" });
  const outcome = await runLeg({ store, agent: agent(wait) }, parent);
  expect(outcome.status).toBe(wait ? "parked" : "completed");
  const child = childTaskId(parent, "call-1-1");
  if (!wait) await runLeg({ store, agent: agent(wait) }, child);
  expect((await store.getTask(child)).summary).toMatchObject({ status: "parked", parkedReason: "approval" });
  expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([]);
  return { parent, child };
}

const results = async (store: Store, parent: string) =>
  (await store.read(parent)).filter((e) => e.type === "child_task" && e.phase === "result");

const notified = async (store: Store, child: string) =>
  (await store.read(child)).filter((e) => e.type === "parent_notified").length;

const runnable = async (store: Store) => (await store.listRunnable()).map((r) => r.taskId);

describe("a child cancelled on its own", () => {
  it("wait: the parent gets the result at once, is runnable, and its next leg answers the call", async () => {
    const store = new MemoryStore();
    const { parent, child } = await parentWithParkedChild(store, true);
    await cancel(store, child, { reason: "stuck" });
    expect(await results(store, parent)).toMatchObject([
      { childTaskId: child, callId: "call-1-1", status: "cancelled" },
    ]);
    expect((await store.getTask(parent)).summary).toMatchObject({ status: "parked", runnable: true });
    expect(await runnable(store)).toEqual([parent]);
    expect(await runLeg({ store, agent: agent(true) }, parent)).toMatchObject({
      status: "completed",
      result: "Handled the cancel.",
    });
    const answer = fold(await store.read(parent)).transcript.find((e) => e.role === "tool");
    expect(answer).toMatchObject({
      status: "error",
      content: `The sub-agent's task ${child} was cancelled.`,
    });
    expect(await runnable(store)).toEqual([]);
  });

  it("wake: a parent that went on is woken by the cancel, once", async () => {
    const store = new MemoryStore();
    const { parent, child } = await parentWithParkedChild(store, false);
    await cancel(store, child);
    expect(await results(store, parent)).toMatchObject([{ childTaskId: child, status: "cancelled" }]);
    expect(await runnable(store)).toEqual([parent]);
    const model = agent(false);
    expect(await runLeg({ store, agent: model }, parent)).toMatchObject({
      status: "completed",
      result: "Heard of the cancel.",
    });
    expect((model.model as ScriptedModel).requests.at(-1)?.transcript.at(-1)).toMatchObject({
      role: "user",
      content: `<system-reminder>\nSub-agent task ${child} cancelled: The sub-agent's task ${child} was cancelled.\n</system-reminder>`,
    });
    expect(await runnable(store)).toEqual([]);
  });

  it("cancelling the parent cancels the child and leaves nothing runnable", async () => {
    const store = new MemoryStore();
    const { parent, child } = await parentWithParkedChild(store, true);
    await cancel(store, parent);
    expect((await store.getTask(child)).summary.status).toBe("cancelled");
    expect(await results(store, parent)).toEqual([]);
    expect(await runnable(store)).toEqual([]);
  });
});

/** What any worker does: run every runnable task (a dead host's leases have expired). */
async function drain(store: Store, wait: boolean): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const ids = await runnable(store);
    if (ids.length === 0) return;
    for (const id of ids) await runLeg({ store, agent: agent(wait) }, id);
  }
  throw new Error("still runnable after 10 rounds");
}

describe("a death between the child's end and its report to the parent", () => {
  for (const wait of [true, false]) {
    for (const when of ["before", "after"] as const) {
      it(`cancel (${wait ? "wait" : "wake"}, death ${when} an append): the parent hears of it exactly once`, async () => {
        let deaths = 0;
        for (let n = 0; n < 4; n++) {
          const store = new MemoryStore();
          const { parent, child } = await parentWithParkedChild(store, wait);
          const dying = dyingStore(store, { appendsBeforeDeath: n, when });
          try {
            await cancel(dying, child);
          } catch (error) {
            if (!(error instanceof SimulatedDeath)) throw error;
            deaths++;
          }
          // The canceller retries when it never heard back from a death before its cancel landed.
          if ((await store.getTask(child)).summary.status !== "cancelled") await cancel(store, child);
          await drain(store, wait);
          expect(await results(store, parent), `death at append ${n}`).toMatchObject([{ status: "cancelled" }]);
          expect((await store.getTask(parent)).summary.status, `death at append ${n}`).toBe("completed");
          expect(await notified(store, child), `death at append ${n}`).toBe(1);
          expect(await runnable(store)).toEqual([]);
        }
        expect(deaths).toBeGreaterThanOrEqual(2);
      });
    }
  }

  it("completion: a child whose host dies after its last append still wakes its parent, once", async () => {
    let deaths = 0;
    for (let n = 0; n < 12; n++) {
      const store = new MemoryStore();
      const parent = await startTask(store, { objective: "Parent" });
      const noApproval: Agent = { ...agent(true), tools: [{ ...deploy, needsApproval: false }] };
      const legs: Agent = { ...noApproval, delegation: { runChildren: false } };
      await runLeg({ store, agent: legs }, parent);
      const child = childTaskId(parent, "call-1-1");
      try {
        await runLeg({ store: dyingStore(store, { appendsBeforeDeath: n, when: "after" }), agent: legs }, child);
      } catch (error) {
        if (!(error instanceof SimulatedDeath) && !isSemaError(error, "LeaseHeld")) throw error;
        deaths++;
      }
      // The dead host's lease on the child stays until it expires: take it over as a worker would.
      const lease = (await store.getTask(child)).lease;
      if (lease !== undefined) await store.releaseLease(child, lease.token);
      for (let round = 0; round < 10 && (await runnable(store)).length > 0; round++)
        for (const id of await runnable(store)) await runLeg({ store, agent: legs }, id);
      expect(await results(store, parent), `death at append ${n}`).toMatchObject([{ status: "completed" }]);
      expect((await store.getTask(parent)).summary.status, `death at append ${n}`).toBe("completed");
      expect(await notified(store, child), `death at append ${n}`).toBe(1);
      expect(await runnable(store)).toEqual([]);
    }
    expect(deaths).toBeGreaterThanOrEqual(4);
  });

  it("a report made while the child runs again (woken after its end) waits for its next end", async () => {
    const store = new MemoryStore();
    const parent = await startTask(store, { objective: "Parent" });
    await runLeg({ store, agent: { model: new ScriptedModel([{ text: "waiting" }]) } }, parent);
    const child = await startChildTask(store, parent, { objective: "Side job" });
    const append = async (events: Parameters<Store["append"]>[1]) =>
      store.append(child, events, { expectedSeq: (await store.getTask(child)).lastSeq });
    // The child ended, its host died before the report, and a wake ran it again.
    await append([make.legStarted("l1"), { type: "task_completed", v: 1, result: "first" }, make.legEnded("l1")]);
    expect((await store.getTask(child)).summary).toMatchObject({ parentReport: "due", runnable: true });
    await append([make.legStarted("l2")]);
    await reportEnd(store, child, parent);
    expect(await results(store, parent)).toEqual([]);
    expect(await notified(store, child)).toBe(0);
    await append([{ type: "task_completed", v: 1, result: "second" }, make.legEnded("l2")]);
    expect(await runnable(store)).toEqual([child]);
    await runLeg({ store, agent: { model: new ScriptedModel([]) } }, child);
    expect(await results(store, parent)).toMatchObject([{ status: "completed", result: "second" }]);
    expect(await notified(store, child)).toBe(1);
    expect(await runnable(store)).toEqual([parent]);
  });
});
