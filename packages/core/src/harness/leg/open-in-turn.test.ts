// A new task's first leg opens in the pacer's turn (`openInTurn`, the person lane): at 10,000 new
// tasks their openings would otherwise run in one wave ahead of everything else on the loop. A leg
// a person's decision woke opens at once.
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { lookupTool } from "../../testing/lookup-tool.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { startTask } from "../tasks/start-task.ts";
import { decideApproval } from "../tools/approvals.ts";
import { type PacerWait, sharedLegPacer } from "./leg-pacer.ts";
import { runLeg } from "./run-leg.ts";

/** `lookup`, with a person approving every call. */
const approvedLookup = { ...lookupTool, needsApproval: true };

afterEach(() => {
  vi.restoreAllMocks();
});

/** The shared pacer made to hold every `person` step until `release`, recording the lanes asked. */
function holdPersonSteps() {
  const lanes: string[] = [];
  let release: () => void = () => undefined;
  const turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  vi.spyOn(sharedLegPacer, "pace").mockImplementation((lane): PacerWait | undefined => {
    lanes.push(lane);
    return lane === "person" ? { turn, promote: () => undefined } : undefined;
  });
  return { lanes, release: () => release() };
}

const types = async (store: MemoryStore, taskId: string) => (await store.read(taskId)).map((event) => event.type);

describe("a leg's opening", () => {
  it("waits for the pacer's person lane when it is a new task's first step", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Answer" });
    const held = holdPersonSteps();
    const model = new ScriptedModel([{ text: "Done." }]);
    const leg = runLeg({ store, agent: { model } }, taskId);
    // Let everything before the pacer run: the lease is taken, nothing is appended yet.
    await vi.waitFor(() => expect(held.lanes).toEqual(["person"]));
    expect(await types(store, taskId)).not.toContain("leg_started");
    held.release();
    expect((await leg).status).toBe("completed");
    expect(await types(store, taskId)).toContain("leg_started");
  });

  it("opens at once when a person's decision woke the task", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Ask, then answer" });
    const model = new ScriptedModel([{ toolCalls: [{ name: "lookup", input: { key: "k1" } }] }, { text: "Done." }]);
    const agent = { model, tools: [approvedLookup] };
    const parked = await runLeg({ store, agent, pacing: false }, taskId);
    expect(parked).toMatchObject({ status: "parked", parkedReason: "approval" });
    const events = await store.read(taskId);
    const request = events.findLast((event) => event.type === "approval_requested");
    if (request?.type !== "approval_requested") throw new Error("no approval was requested");
    await decideApproval(store, taskId, {
      callId: request.callId,
      digest: request.digest,
      decision: "approve",
      actor: { id: "alice", verified: true },
      principal: "local",
    });
    const held = holdPersonSteps();
    expect((await runLeg({ store, agent }, taskId)).status).toBe("completed");
    // No step of this leg was held: its opening and its turns are a person's (attended).
    expect(held.lanes.filter((lane) => lane === "person")).toEqual([]);
  });

  it("is not paced at all with pacing off", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Answer" });
    const held = holdPersonSteps();
    const outcome = await runLeg(
      { store, agent: { model: new ScriptedModel([{ text: "Done." }]) }, pacing: false },
      taskId,
    );
    expect(outcome.status).toBe("completed");
    expect(held.lanes).toEqual([]);
  });
});
