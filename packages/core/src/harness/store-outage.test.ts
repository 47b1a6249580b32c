// A store that goes away while a leg runs (a failover, a dropped connection): the leg waits it
// out while its lease can still be live, never writes an event twice when a commit's reply is
// lost, and stops before its next side effect once the lease is gone.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { fold } from "../core/fold.ts";
import type { StreamEvent } from "../protocol/stream-event.ts";
import { flakyStore } from "../testing/flaky-store.ts";
import { noteTool, noteTurns } from "../testing/note-tool.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { runLeg } from "./leg/run-leg.ts";
import { startTask } from "./tasks/start-task.ts";
import { jumpingClock } from "./test-support/jumping-clock.ts";

const turns = (n: number) => noteTurns(Array.from({ length: n }, (_, i) => `n${i}`));

async function expectCleanLog(store: MemoryStore, taskId: string, notes: number) {
  const events = await store.read(taskId);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const state = fold(events);
  expect(state.summary.status).toBe("completed");
  const results = events.filter((e) => e.type === "tool_result");
  expect(results).toHaveLength(notes);
  expect(new Set(results.map((e) => (e.type === "tool_result" ? e.callId : ""))).size).toBe(notes);
  expect(events.filter((e) => e.type === "model_turn")).toHaveLength(notes + 1);
}

describe("a leg and a store outage", () => {
  it("waits out an outage shorter than its lease and finishes with nothing lost or doubled", async () => {
    const inner = new MemoryStore();
    const store = flakyStore(inner);
    const { runs, note } = noteTool(async (text) => {
      if (text !== "n1") return;
      // The database goes away while the tool runs, and comes back once the leg has retried
      // three times: an outage well inside the lease, ended by the leg's own progress, not a timer.
      store.down = true;
    });
    const taskId = await startTask(inner, { objective: "Take notes" });
    const seen: StreamEvent[] = [];
    const outcome = await runLeg(
      {
        store,
        agent: { model: new ScriptedModel(turns(3)), tools: [note] },
        leaseTtlMs: 5_000,
        emit: (e) => {
          seen.push(e);
          if (e.type === "store_retry" && e.attempt === 3) store.down = false;
        },
      },
      taskId,
    );
    expect(outcome.status).toBe("completed");
    expect(runs).toEqual({ n0: 1, n1: 1, n2: 1 });
    expect(store.refused).toBeGreaterThan(0);
    const retries = seen.filter((e) => e.type === "store_retry");
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ taskId, attempt: 1 });
    expect(retries.map((e) => e.type === "store_retry" && e.attempt)).toContain(3);
    await expectCleanLog(inner, taskId, 3);
  });

  it("never appends twice when a commit's reply is lost, at any append of the run", async () => {
    const total = await (async () => {
      const inner = new MemoryStore();
      const taskId = await startTask(inner, { objective: "Take notes" });
      const { note } = noteTool();
      let appends = 0;
      const counting = flakyStore(inner);
      const original = counting.append.bind(counting);
      counting.append = (...args) => {
        appends++;
        return original(...args);
      };
      await runLeg({ store: counting, agent: { model: new ScriptedModel(turns(3)), tools: [note] } }, taskId);
      return appends;
    })();
    expect(total).toBeGreaterThan(5);
    for (let n = 0; n < total; n++) {
      const inner = new MemoryStore();
      const store = flakyStore(inner);
      const taskId = await startTask(inner, { objective: "Take notes" });
      const { runs, note } = noteTool();
      let appends = 0;
      const original = store.append.bind(store);
      store.append = (...args) => {
        if (appends++ === n) store.commitThenFail = 1;
        return original(...args);
      };
      const outcome = await runLeg({ store, agent: { model: new ScriptedModel(turns(3)), tools: [note] } }, taskId);
      expect(outcome.status, `lost reply at append ${n}`).toBe("completed");
      expect(runs, `lost reply at append ${n}`).toEqual({ n0: 1, n1: 1, n2: 1 });
      await expectCleanLog(inner, taskId, 3);
    }
  });

  it("stops before its next side effect when the outage outlasts the lease, and another host recovers", async () => {
    // The store's clock can be moved past host a's lease, so host b need not wait for it.
    const clock = jumpingClock();
    const inner = new MemoryStore({ now: clock.now });
    const store = flakyStore(inner);
    const { runs, note } = noteTool((text) => {
      if (text === "n0") store.down = true;
    });
    const taskId = await startTask(inner, { objective: "Take notes" });
    const failed = await runLeg(
      { store, agent: { model: new ScriptedModel(turns(3)), tools: [note] }, leaseTtlMs: 300, holder: { id: "a" } },
      taskId,
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failed as { code?: string }).code).toMatch(/^(StoreUnavailable|LeaseLost)$/);
    expect(runs).toEqual({ n0: 1 });
    store.down = false;
    clock.jump(301); // host a's lease (300 ms) has lapsed, whatever the machine's load
    const outcome = await runLeg(
      {
        store: inner,
        agent: { model: new ScriptedModel(turns(3), { mode: "by-transcript" }), tools: [note] },
        holder: { id: "b" },
      },
      taskId,
    );
    expect(outcome.status).toBe("completed");
    // n0's result never reached the log: its effect is unknown, so it is reported, not re-run.
    expect(runs).toEqual({ n0: 1, n1: 1, n2: 1 });
    const interrupted = (await inner.read(taskId)).filter(
      (e) => e.type === "tool_result" && e.status === "interrupted",
    );
    expect(interrupted).toHaveLength(1);
  });
});
