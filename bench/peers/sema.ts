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

/** Sema's adapter. */
export const adapter: Adapter = {
  name: "Sema",
  usage:
    "`startTask` + one `runLeg` per task, `ScriptedModel` with `recordRequests: false`, a `defineTool` tool marked `readOnly`; one `MemoryStore` per process, or `SqliteStore({ path })` (the durable variant).",
  createRunner() {
    const store = new MemoryStore();
    return {
      async runTask(shape) {
        await run(store, shape);
      },
    };
  },
  durable: {
    open(file) {
      const store = new SqliteStore({ path: file });
      return { runTask: (shape) => run(store, shape), close: () => store.close() };
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
      await sendInput(store, taskId, { text: "One more thing.", carrier: "wake" });
      const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
      await store.close();
      if (outcome.status !== "completed" || firstCall === undefined) throw new Error(`resume ended ${outcome.status}`);
      return { opened: start, firstCall };
    },
  },
};
