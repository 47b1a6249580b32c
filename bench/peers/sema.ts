/**
 * Sema, as bench/harness.ts runs it: `startTask`, then one `runLeg` over the whole task, with
 * `ScriptedModel` (request recording off) and an instant read-only tool. In memory on one
 * MemoryStore per process; durable on a SqliteStore file.
 */
import { MemoryStore, type Model, runLeg, type Store, sendInput, startTask } from "@sema-agent/core";
import { lookupTool, ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { type Adapter, callsAt, FINAL_TEXT, OBJECTIVE, type TaskShape, TURN_TEXT } from "./workloads.ts";

/** The scripted turns of a task of `shape` (shared with the createAgent adapter). */
export function script(shape: TaskShape): ScriptedTurn[] {
  return Array.from({ length: shape.turns }, (_, turn) => {
    const calls = callsAt(shape, turn);
    if (calls.length === 0) return { text: FINAL_TEXT };
    return {
      text: TURN_TEXT,
      toolCalls: calls.map((call) => ({ name: "lookup", input: { key: call.key }, callId: call.id })),
    };
  });
}

async function run(store: Store, shape: TaskShape): Promise<string> {
  const taskId = await startTask(store, { objective: OBJECTIVE });
  const model = new ScriptedModel(script(shape), { recordRequests: false });
  const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
  if (model.calls !== shape.turns) throw new Error(`${model.calls} model calls for ${shape.turns} turns`);
  return taskId;
}

/** How one of Sema's adapters runs a task, and continues a finished one with a follow-up. */
export interface SemaWay {
  name: string;
  usage: string;
  /** Run a task of `shape` to completion on `store`; its id. */
  run(store: Store, shape: TaskShape): Promise<string>;
  /** Send "One more thing." to the finished `taskId` and run it with `model`; the status it ended in. */
  followUp(store: Store, model: Model, taskId: string): Promise<string>;
}

/** A peer adapter for one way of running Sema: in memory, durable on a SQLite file, resumed. */
export function semaAdapter(way: SemaWay): Adapter {
  return {
    name: way.name,
    usage: way.usage,
    createRunner() {
      const store = new MemoryStore();
      return {
        async runTask(shape) {
          await way.run(store, shape);
        },
      };
    },
    durable: {
      open(file) {
        const store = new SqliteStore({ path: file });
        return { runTask: (shape) => way.run(store, shape), close: () => store.close() };
      },
      async resume(file, taskId) {
        const start = performance.now();
        const store = new SqliteStore({ path: file });
        let firstCall: number | undefined;
        const inner = new ScriptedModel([{ text: FINAL_TEXT }], { recordRequests: false });
        // Times the first call, then answers like any scripted model.
        const model: Model = {
          id: inner.id,
          stream(request, signal) {
            firstCall ??= performance.now();
            return inner.stream(request, signal);
          },
        };
        // A conversation continues: the follow-up wakes the finished task, and it runs again.
        const status = await way.followUp(store, model, taskId);
        await store.close();
        if (status !== "completed" || firstCall === undefined) throw new Error(`resume ended ${status}`);
        return { opened: start, firstCall };
      },
    },
  };
}

/** Sema's adapter. */
export const adapter: Adapter = semaAdapter({
  name: "Sema",
  usage:
    "`startTask` + one `runLeg` per task, `ScriptedModel` with `recordRequests: false`, a `defineTool` tool marked `readOnly`; one `MemoryStore` per process, or `SqliteStore({ path })` (the durable variant).",
  run,
  async followUp(store, model, taskId) {
    await sendInput(store, taskId, { text: "One more thing.", carrier: "wake" });
    return (await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId)).status;
  },
});
