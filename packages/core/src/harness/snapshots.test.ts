/**
 * When a leg stores snapshots: spaced geometrically while it runs and at its end, whether the task
 * parked or finished; and a leg after either folds from the latest to the state of the whole log.
 */
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { fold } from "../core/fold.ts";
import type { Snapshot } from "../ports/store.ts";
import { lookupTool, lookupTurns } from "../testing/lookup-tool.ts";
import { ScriptedModel, type ScriptedTurn } from "../testing/scripted-model.ts";
import { runLeg } from "./leg/run-leg.ts";
import { sendInput } from "./tasks/send-input.ts";
import { startTask } from "./tasks/start-task.ts";

/** `turns` lookups, then a final answer; after a wake, one more answer. */
function script(turns: number): ScriptedTurn[] {
  return [...lookupTurns(turns + 1), { text: "Done again." }];
}

/** A MemoryStore that records the seq of every snapshot put and where every read started. */
class SpyStore extends MemoryStore {
  readonly snapshots: number[] = [];
  readonly readsAfter: number[] = [];
  override async putSnapshot(snapshot: Snapshot): Promise<void> {
    this.snapshots.push(snapshot.seq);
    return super.putSnapshot(snapshot);
  }
  override async read(taskId: string, options: { afterSeq?: number; limit?: number } = {}) {
    this.readsAfter.push(options.afterSeq ?? 0);
    return super.read(taskId, options);
  }
}

describe("snapshots", () => {
  it("are spaced geometrically while a leg runs, and stored at its end when the task finished", async () => {
    const store = new SpyStore();
    const taskId = await startTask(store, { objective: "Look everything up" });
    const agent = { model: new ScriptedModel(script(200)), tools: [lookupTool] };
    expect((await runLeg({ store, agent, snapshotEvery: 20 }, taskId)).status).toBe("completed");
    const last = (await store.read(taskId)).at(-1)?.seq ?? 0;
    expect(store.snapshots.length).toBeGreaterThanOrEqual(4);
    // The last one at the end of the log, the leg's own; the ones while it ran each once the
    // events since the previous made up half the log: their seqs at least double.
    expect(store.snapshots.at(-1)).toBe(last);
    const periodic = store.snapshots.slice(0, -1);
    expect(periodic.at(-1)).toBeLessThan(last);
    for (let i = 1; i < periodic.length; i++) {
      expect(periodic[i]).toBeGreaterThanOrEqual(2 * (periodic[i - 1] ?? 0));
    }

    // A wake folds from the latest snapshot and the rest of the log: the state of the whole log.
    const latest = store.snapshots.at(-1);
    store.readsAfter.length = 0;
    await sendInput(store, taskId, { text: "One more thing.", carrier: "wake" });
    expect((await runLeg({ store, agent }, taskId)).result).toBe("Done again.");
    expect(store.readsAfter[0]).toBe(latest);
    const snapshot = await store.latestSnapshot(taskId);
    expect(snapshot?.state).toEqual(fold((await store.read(taskId)).slice(0, snapshot?.seq)));
  });

  it("are stored at the end of a leg that parks, and the next leg folds from there", async () => {
    const store = new SpyStore();
    const taskId = await startTask(store, { objective: "Look everything up" });
    const model = new ScriptedModel(script(60));
    const parked = await runLeg({ store, agent: { model, tools: [lookupTool], budget: { maxTurns: 50 } } }, taskId);
    expect(parked).toMatchObject({ status: "parked", parkedReason: "budget" });
    const end = (await store.read(taskId)).at(-1)?.seq;
    expect(store.snapshots).toEqual([end]);
    store.readsAfter.length = 0;
    const done = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId, { trigger: "resume" });
    expect(done.status).toBe("completed");
    expect(store.readsAfter[0]).toBe(end);
  });

  it("are not stored for a short log", async () => {
    const store = new SpyStore();
    const taskId = await startTask(store, { objective: "Look it up" });
    const agent = { model: new ScriptedModel(script(3)), tools: [lookupTool], budget: { maxTurns: 2 } };
    expect((await runLeg({ store, agent }, taskId)).status).toBe("parked");
    expect(store.snapshots).toEqual([]);
  });
});
