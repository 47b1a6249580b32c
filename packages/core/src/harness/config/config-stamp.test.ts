// The check of an agent (and of a leg's options) is cached per object, but an object changed since
// its check is checked again (issue 30): the stamp notices a changed value two levels down.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { validateAgent } from "./agent-schema.ts";
import { configStamp, matchesStamp } from "./config-stamp.ts";

const model = () => new ScriptedModel([{ text: "done" }]);
const lookup = () =>
  defineTool({ name: "lookup", description: "Look up", inputSchema: z.object({ q: z.string() }), execute: () => "x" });

describe("configStamp", () => {
  it("matches the object it was taken of, and not one with a value changed, added or removed (property)", () => {
    const leaf = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(undefined));
    const nested = fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), leaf, { maxKeys: 4 });
    const value = fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.oneof(leaf, nested), {
      minKeys: 1,
      maxKeys: 5,
    });
    fc.assert(
      fc.property(value, fc.nat(), fc.string({ minLength: 1, maxLength: 4 }), (object, pick, extra) => {
        const stamp = configStamp(object);
        expect(matchesStamp(object, stamp)).toBe(true);
        expect(matchesStamp({ ...object }, stamp)).toBe(true);
        const keys = Object.keys(object);
        const key = keys[pick % keys.length] ?? "";
        if (!(extra in object)) expect(matchesStamp({ ...object, [extra]: 1 }, stamp)).toBe(false);
        const { [key]: _removed, ...fewer } = object;
        expect(matchesStamp(fewer, stamp)).toBe(false);
        // Changed in place, at the top or inside the same nested object (the object keeps its identity).
        const inner = object[key];
        const innerKey = typeof inner === "object" && inner !== null ? Object.keys(inner)[0] : undefined;
        if (innerKey !== undefined) (inner as Record<string, unknown>)[innerKey] = Symbol("changed");
        else object[key] = Symbol("changed") as never;
        expect(matchesStamp(object, stamp)).toBe(false);
      }),
    );
  });
});

describe("an agent changed after its check", () => {
  it("is checked again: a bad budget set on a checked agent is a ConfigError", () => {
    const agent: Agent = { model: model(), budget: { maxTokens: 100 } };
    validateAgent(agent);
    (agent.budget as { maxTokens: number }).maxTokens = -5;
    expect(() => validateAgent(agent)).toThrow(/budget\.maxTokens/);
    agent.budget = { maxTokens: 10 };
    validateAgent(agent);
    Object.assign(agent, { nonsense: true });
    expect(() => validateAgent(agent)).toThrow(/nonsense/);
  });

  it("a plain agent's tool broken after its check, and a sub-agent changed after its parent's", () => {
    const tool = lookup();
    const plain: Agent = { model: model(), tools: [tool] };
    validateAgent({ model: model(), tools: [tool], instructions: "x" }); // the full check, which records the tool
    validateAgent(plain);
    Object.assign(tool, { execute: "not a function" });
    expect(() => validateAgent(plain)).toThrow(/execute/);

    const helper: Agent = { model: model() };
    const lead: Agent = { model: model(), delegation: { agents: { helper } } };
    validateAgent(lead);
    Object.assign(helper, { model: undefined });
    expect(() => validateAgent(lead)).toThrow(/delegation\.agents\.helper\.model/);
  });

  it("runLeg checks the agent again before a leg when it changed since the last", async () => {
    const store = new MemoryStore();
    const agent: Agent = { model: model(), budget: { maxTurns: 3 } };
    const first = await startTask(store, { objective: "one" });
    await runLeg({ store, agent }, first);
    (agent.budget as { maxTurns: number }).maxTurns = 0.5;
    const second = await startTask(store, { objective: "two" });
    await expect(runLeg({ store, agent }, second)).rejects.toMatchObject({ code: "ConfigError" });
  });
});
