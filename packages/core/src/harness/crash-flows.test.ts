// A crash in the middle of each flow of design §6: delegation (with a child's tool that is not
// idempotent) and hooks (feedback and a replaced input), killed at every append of the whole
// run, parent's and child's alike, then resumed by a fresh harness until done.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { fold } from "../core/fold.ts";
import type { ModelRequest } from "../ports/model.ts";
import type { Store } from "../ports/store.ts";
import { isSemaError } from "../protocol/errors.ts";
import { dyingStore, SimulatedDeath } from "../testing/dying-store.ts";
import { noteTool } from "../testing/note-tool.ts";
import { ScriptedModel, type ScriptedTurn } from "../testing/scripted-model.ts";
import type { Agent } from "./agent.ts";
import { runLeg } from "./leg/run-leg.ts";
import { startTask } from "./tasks/start-task.ts";
import { jumpingClock } from "./test-support/jumping-clock.ts";

/** Stateless scripts chosen by objective, so every resumed leg continues where its task was. */
function model(): ScriptedModel {
  const scripts: Record<string, ScriptedTurn[]> = {
    Parent: [
      { toolCalls: [{ name: "note", input: { text: "parent-1" } }] },
      { toolCalls: [{ name: "delegate", input: { objective: "Child" } }] },
      { text: "Parent done." },
    ],
    Child: [{ toolCalls: [{ name: "note", input: { text: "child-1" } }] }, { text: "Child done." }],
  };
  const step = (request: ModelRequest): ScriptedTurn => {
    const first = request.transcript[0];
    const script = scripts[first?.role === "user" ? first.content : ""] ?? [];
    return script[request.transcript.filter((e) => e.role === "assistant").length] ?? { text: "?" };
  };
  return new ScriptedModel(Array.from({ length: 200 }, () => step));
}

function agentWith(tools: Agent["tools"]): Agent {
  return {
    model: model(),
    ...(tools === undefined ? {} : { tools }),
    delegation: {},
    hooks: {
      afterModel: ({ toolCalls }) => (toolCalls.length > 0 ? { feedback: "Keep notes short." } : undefined),
      beforeTool: ({ call }) =>
        call.name === "note"
          ? { action: "replace", input: { text: (call.input as { text: string }).text } }
          : undefined,
    },
  };
}

/**
 * A memory store whose clock the test can move forward: a dead host's lease expires when the
 * test says so, not after a real wait.
 */
function storeWithClock(): { store: MemoryStore; passLeases: () => void; now: () => number } {
  // The legs read the same clock (HarnessOptions.clock), and it moves only when the test says.
  const clock = jumpingClock({ withWallClock: false });
  const store = new MemoryStore({ now: clock.now });
  return { store, passLeases: () => clock.jump(LEASE_TTL_MS + 1), now: clock.now };
}

const LEASE_TTL_MS = 100;

async function runToEnd(
  { store, passLeases, now }: { store: Store; passLeases: () => void; now: () => number },
  taskId: string,
  tools: Agent["tools"],
  dieAfter: number,
): Promise<boolean> {
  let died = false;
  for (let attempt = 0; attempt < 20; attempt++) {
    const host =
      attempt === 0
        ? dyingStore(store, { appendsBeforeDeath: dieAfter, when: attempt % 2 === 0 ? "before" : "after" })
        : store;
    try {
      const outcome = await runLeg(
        {
          store: host,
          agent: agentWith(tools),
          holder: { id: `host-${attempt}` },
          leaseTtlMs: LEASE_TTL_MS,
          clock: now,
        },
        taskId,
      );
      if (outcome.status === "completed") return died;
    } catch (error) {
      // A dead host, or (on a loaded machine) a lease that lapsed or is still held: try again.
      if (!(error instanceof SimulatedDeath) && !isSemaError(error, "LeaseLost") && !isSemaError(error, "LeaseHeld"))
        throw error;
      died ||= error instanceof SimulatedDeath;
      passLeases(); // the dead host's leases expire
    }
    // Whatever the dead host left (a child mid-run, a parent waiting), any process can pick up.
    for (const record of await store.listRunnable()) {
      if (record.taskId !== taskId)
        await runLeg(
          { store, agent: agentWith(tools), holder: { id: `worker-${attempt}` }, clock: now },
          record.taskId,
        ).catch(() => undefined);
    }
  }
  throw new Error("the task never completed");
}

describe("a crash in the middle of delegation and hooks", () => {
  it("at every append: nothing lost, nothing run twice, every call answered once, same answer", async () => {
    let deaths = 0;
    for (let n = 0; n < 30; n++) {
      const clocked = storeWithClock();
      const { store } = clocked;
      const { runs, note } = noteTool();
      const taskId = await startTask(store, { objective: "Parent" });
      if (await runToEnd(clocked, taskId, [note], n)) deaths++;
      const parent = fold(await store.read(taskId));
      expect(parent.result, `death at append ${n}`).toBe("Parent done.");
      for (const [text, times] of Object.entries(runs))
        expect(times, `${text}, death at append ${n}`).toBeLessThanOrEqual(1);
      for (const id of [taskId, ...parent.children.map((c) => c.childTaskId)]) {
        const events = await store.read(id);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        const calls = events.flatMap((e) => (e.type === "model_turn" ? e.toolCalls.map((c) => c.callId) : []));
        const results = events
          .filter((e) => e.type === "tool_result")
          .map((e) => (e.type === "tool_result" ? e.callId : ""));
        expect([...results].sort(), `${id}, death at append ${n}`).toEqual([...calls].sort());
      }
      expect(parent.children).toHaveLength(1);
      expect(parent.transcript.find((e) => e.role === "tool" && e.name === "delegate")).toMatchObject({
        content: "Child done.",
      });
    }
    expect(deaths).toBeGreaterThan(10);
  });
});
