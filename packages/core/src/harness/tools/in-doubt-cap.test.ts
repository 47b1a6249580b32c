// Issue 13, finding 5's tail: an idempotent call whose every run kills its host (a tool stuck in
// synchronous code until the process is killed, one that crashes it) is re-run after each
// restart — a poison task — unless re-runs stop somewhere. They stop after MAX_TOOL_ATTEMPTS.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { Store } from "../../ports/store.ts";
import { SimulatedDeath } from "../../testing/dying-store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "./define-tool.ts";
import { MAX_TOOL_ATTEMPTS } from "./tool-phase.ts";

/** A host over `inner` that a tool can kill: from then on every append fails, as for a dead process. */
function mortalHost(inner: Store): { store: Store; kill: () => void } {
  let dead = false;
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "append" && dead) return () => Promise.reject(new SimulatedDeath());
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, kill: () => (dead = true) };
}

describe("an idempotent call whose runs keep killing the host", () => {
  it(`is run at most ${MAX_TOOL_ATTEMPTS} times, then answered as abandoned, and the task goes on`, async () => {
    const base = new MemoryStore();
    const taskId = await startTask(base, { objective: "Search" });
    let runs = 0;
    for (let restart = 0; restart < MAX_TOOL_ATTEMPTS + 3; restart++) {
      const host = mortalHost(base);
      const poison = defineTool({
        name: "poison",
        description: "kills whoever runs it",
        inputSchema: z.object({}),
        readOnly: true,
        idempotent: true,
        execute: () => {
          runs += 1;
          host.kill();
          return "never recorded";
        },
      });
      const model = new ScriptedModel([{ toolCalls: [{ name: "poison", input: {} }] }, { text: "Moved on." }], {
        mode: "by-transcript",
      });
      await runLeg({ store: host.store, agent: { model, tools: [poison] } }, taskId).catch(() => undefined);
    }
    expect(runs).toBe(MAX_TOOL_ATTEMPTS);
    const events = await base.read(taskId);
    const result = events.find((event) => event.type === "tool_result");
    expect(result).toMatchObject({ status: "interrupted" });
    expect(result?.type === "tool_result" ? result.content : "").toContain(`started ${MAX_TOOL_ATTEMPTS} times`);
    expect((await base.getTask(taskId))?.summary.status).toBe("completed");
  });
});
