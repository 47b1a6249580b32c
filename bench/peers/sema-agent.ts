/**
 * Sema through its one-call API: `createAgent({ model, tools, store }).run(objective)`, the layer
 * an application reaches for, over the same `startTask` + `runLeg` the `sema` adapter calls
 * directly. The two side by side show what the layer costs per task and per turn.
 */
import { createAgent, type Store } from "@sema-agent/core";
import { lookupTool, ScriptedModel } from "@sema-agent/core/testing";
import { script, semaAdapter } from "./sema.ts";
import { type Adapter, OBJECTIVE, type TaskShape } from "./workloads.ts";

async function run(store: Store, shape: TaskShape): Promise<string> {
  const model = new ScriptedModel(script(shape), { recordRequests: false });
  const result = await createAgent({ model, tools: [lookupTool], store }).run(OBJECTIVE);
  if (result.status !== "completed") throw new Error(`the task ended ${result.status}`);
  if (model.calls !== shape.turns) throw new Error(`${model.calls} model calls for ${shape.turns} turns`);
  return result.taskId;
}

/** Sema's one-call adapter. */
export const adapter: Adapter = semaAdapter({
  name: "Sema createAgent",
  usage:
    "`createAgent({ model, tools: [lookupTool], store }).run(objective)` per task — the same `ScriptedModel` and tool as the `sema` adapter, one `MemoryStore` per process or `SqliteStore({ path })`.",
  run,
  async followUp(store, model, taskId) {
    const agent = createAgent({ model, tools: [lookupTool], store });
    await agent.send(taskId, "One more thing.");
    return (await agent.continue(taskId)).status;
  },
});
