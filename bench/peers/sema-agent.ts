/**
 * Sema through its one-call API: `createAgent({ model, tools, store }).run(objective)`, the layer
 * an application reaches for, over the same `startTask` + `runLeg` the `sema` adapter calls
 * directly. The two side by side show what the layer costs per task and per turn.
 */
import { createAgent, MemoryStore, type Model, type Store } from "@sema-agent/core";
import { lookupTool, ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { script } from "./sema.ts";
import { type Adapter, FINAL_TEXT, OBJECTIVE, type TaskShape } from "./workloads.ts";

async function run(store: Store, shape: TaskShape): Promise<string> {
  const model = new ScriptedModel(script(shape), { recordRequests: false });
  const result = await createAgent({ model, tools: [lookupTool], store }).run(OBJECTIVE);
  if (result.status !== "completed") throw new Error(`the task ended ${result.status}`);
  if (model.calls !== shape.turns) throw new Error(`${model.calls} model calls for ${shape.turns} turns`);
  return result.taskId;
}

/** Sema's one-call adapter. */
export const adapter: Adapter = {
  name: "Sema createAgent",
  usage:
    "`createAgent({ model, tools: [lookupTool], store }).run(objective)` per task — the same `ScriptedModel` and tool as the `sema` adapter, one `MemoryStore` per process or `SqliteStore({ path })`.",
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
      const model: Model = {
        id: inner.id,
        stream(request, signal) {
          firstCall ??= performance.now();
          return inner.stream(request, signal);
        },
      };
      // A conversation continues: the follow-up wakes the finished task, continue runs it.
      const agent = createAgent({ model, tools: [lookupTool], store });
      await agent.send(taskId, "One more thing.");
      const result = await agent.continue(taskId);
      await store.close();
      if (result.status !== "completed" || firstCall === undefined) throw new Error(`resume ended ${result.status}`);
      return { opened: start, firstCall };
    },
  },
};
