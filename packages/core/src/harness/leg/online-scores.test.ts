import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { validateAgent } from "../config/agent-schema.ts";
import { defineScorer } from "../scoring/define-scorer.ts";
import { startTask } from "../tasks/start-task.ts";
import { isSampled } from "./online-scores.ts";
import { runLeg } from "./run-leg.ts";

const short = defineScorer({
  name: "short",
  score: ({ output }) => ({ value: (output ?? "").length <= 10 ? 1 : 0, reason: "at most 10 characters" }),
});

describe("online scores", () => {
  it("score a task as its leg ends it, recorded on the task and seen by the leg's sink", async () => {
    const store = new MemoryStore();
    const seen: string[] = [];
    const agent: Agent = { model: new ScriptedModel([{ text: "Lisbon." }]), scoring: { scorers: [short] } };
    const taskId = await startTask(store, { objective: "Capital of Portugal?" });
    const outcome = await runLeg({ store, agent, emit: (event) => seen.push((event as StoredEvent).type) }, taskId);
    expect(outcome.status).toBe("completed");
    expect((await store.getTask(taskId)).summary.scores).toEqual({
      short: { value: 1, reason: "at most 10 characters" },
    });
    expect(seen.at(-1)).toBe("task_scored");
  });

  it("leave a task that has not ended, or is not sampled, unscored; a failing scorer changes nothing", async () => {
    const store = new MemoryStore();
    const broken = defineScorer({
      name: "broken",
      score: () => {
        throw new Error("judge down");
      },
    });
    const none: Agent = {
      model: new ScriptedModel([{ text: "Lisbon." }]),
      scoring: { scorers: [short], sampleRate: 0 },
    };
    const a = await startTask(store, { objective: "Q" });
    await runLeg({ store, agent: none }, a);
    expect((await store.getTask(a)).summary.scores).toBeUndefined();
    const failing: Agent = { model: new ScriptedModel([{ text: "Lisbon." }]), scoring: { scorers: [broken, short] } };
    const b = await startTask(store, { objective: "Q" });
    expect((await runLeg({ store, agent: failing }, b)).status).toBe("completed");
    expect(Object.keys((await store.getTask(b)).summary.scores ?? {})).toEqual(["short"]);
  });

  it("are configured where the agent is given", () => {
    const model = new ScriptedModel([]);
    expect(() => validateAgent({ model, scoring: { scorers: [] } })).toThrow(/scoring.scorers/);
    expect(() => validateAgent({ model, scoring: { scorers: [short], sampleRate: 2 } })).toThrow(/sampleRate/);
    expect(() => validateAgent({ model, scoring: { scorers: [short, short] } })).toThrow(/repeats a scorer's name/);
    expect(() => validateAgent({ model, scoring: { scorers: [{ name: "x" } as never] } })).toThrow(/must be a Scorer/);
  });
});

describe("isSampled", () => {
  it("is a function of the id, takes about the share asked, and every id at 1, none at 0 (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.double({ min: 0, max: 1, noNaN: true }), (id, rate) => {
        expect(isSampled(id, rate)).toBe(isSampled(id, rate));
        expect(isSampled(id, 1)).toBe(true);
        expect(isSampled(id, 0)).toBe(false);
      }),
    );
    const ids = Array.from({ length: 4000 }, (_, i) => `01a24f5${i.toString(16).padStart(3, "0")}-task-${i}`);
    const share = ids.filter((id) => isSampled(id, 0.25)).length / ids.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.3);
  });
});
