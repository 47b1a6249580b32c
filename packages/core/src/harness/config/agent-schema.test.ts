import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { Tool } from "../../ports/tool.ts";
import { ConfigError, isSemaError } from "../../protocol/errors.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { Agent, HarnessOptions } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { streamLeg } from "../leg/stream-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { loadTaskState } from "../tasks/task-overview.ts";
import { defineTool } from "../tools/define-tool.ts";
import { agentSchema, isPlainAgent, validateAgent } from "./agent-schema.ts";
import { harnessSchema, isPlainHarness } from "./harness-options-schema.ts";

const model = () => new ScriptedModel([{ text: "done" }]);

const add = defineTool({
  name: "add",
  description: "adds",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

/** What a JavaScript caller (or a config file) may pass: not typed, so not checked by the compiler. */
function untyped(value: object): Agent {
  return value as Agent;
}

async function configErrorOf(run: () => unknown): Promise<ConfigError> {
  try {
    await run();
  } catch (error) {
    expect(isSemaError(error, "ConfigError")).toBe(true);
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

/** A task, and a check that a refused leg left its log exactly as it was ("created", nothing appended). */
async function untouchedTask() {
  const store = new MemoryStore();
  const taskId = await startTask(store, { objective: "Say done" });
  const before = await store.read(taskId);
  return {
    store,
    taskId,
    async expectUntouched() {
      expect(await store.read(taskId)).toEqual(before);
      expect((await loadTaskState(store, taskId)).summary.status).toBe("created");
    },
  };
}

describe("an agent is checked when a leg is asked for", () => {
  it("a missing model is a ConfigError that says what to set, and the task is not left running", async () => {
    const task = await untouchedTask();
    const error = await configErrorOf(() => runLeg({ store: task.store, agent: untyped({}) }, task.taskId));
    expect(error.message).toBe(
      "runLeg: agent.model is missing: pass a Model, e.g. fromAiSdk(...) of @sema-agent/ai-sdk",
    );
    expect(error).toMatchObject({ code: "ConfigError", isRetryable: false, name: "ConfigError" });
    expect(error.problems).toEqual([{ path: "agent.model", message: expect.stringContaining("is missing") }]);
    expect(error.toJSON()).toMatchObject({ code: "ConfigError", details: { where: "runLeg" } });
    await task.expectUntouched();
  });

  it("streamLeg throws at the call, before anything is appended", async () => {
    const task = await untouchedTask();
    const error = await configErrorOf(() =>
      streamLeg({ store: task.store, agent: untyped({ modle: model() }) }, task.taskId),
    );
    expect(error.message).toContain(
      'agent has unknown key "modle" (did you mean "model"?): remove it or fix the spelling',
    );
    expect(error.message).toContain("agent.model is missing");
    expect(error.problems[0]?.unknownKeys ?? error.problems[1]?.unknownKeys).toEqual(["modle"]);
    await task.expectUntouched();
  });

  it("names each problem deep inside: a tool without execute, a hook that is not a function, a budget key", async () => {
    const task = await untouchedTask();
    const { execute: _execute, ...noExecute } = add;
    const agent = untyped({
      model: model(),
      tools: [add, noExecute],
      hooks: { beforeTool: "deny" },
      budget: { maxTurn: 3 },
    });
    const error = await configErrorOf(() => runLeg({ store: task.store, agent }, task.taskId));
    expect(error.problems.map((problem) => problem.path)).toEqual([
      "agent.tools.1.execute",
      "agent.hooks.beforeTool",
      "agent.budget",
    ]);
    expect(error.message).toContain("agent.tools.1.execute is missing: execute(input, context) runs the tool");
    expect(error.message).toContain("agent.hooks.beforeTool must be a function (beforeTool(context)), got a string");
    expect(error.message).toContain('agent.budget has unknown key "maxTurn"');
    await task.expectUntouched();
  });

  it("checks the provenance policy and a tool's effects: an unknown rule, effect class or key is named", async () => {
    const task = await untouchedTask();
    const agent = untyped({
      model: model(),
      tools: [{ ...add, effects: "remote" }],
      provenancePolicy: { external: { tainted: "ask" }, minChar: 10 },
    });
    const error = await configErrorOf(() => runLeg({ store: task.store, agent }, task.taskId));
    expect(error.problems.map((problem) => problem.path)).toEqual(
      expect.arrayContaining(["agent.tools.0.effects", "agent.provenancePolicy"]),
    );
    await task.expectUntouched();
    expect(() => validateAgent({ model: model(), provenancePolicy: "allow" })).not.toThrow();
  });

  it("checks the quarantine rules and a tool's reader fields", () => {
    const problems = (agent: object) => {
      try {
        validateAgent(untyped(agent));
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((problem) => problem.path);
      }
    };
    expect(
      problems({ model: model(), provenancePolicy: { quarantine: { trustEnums: true, trustNumbers: false } } }),
    ).toEqual([]);
    expect(problems({ model: model(), provenancePolicy: { quarantine: { trustEnums: "yes" } } })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^agent\.provenancePolicy/)]),
    );
    expect(problems({ model: model(), provenancePolicy: { quarantine: { trustStrings: true } } })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^agent\.provenancePolicy/)]),
    );
    expect(problems({ model: model(), tools: [{ ...add, readerFields: { to: "text" } }] })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^agent\.tools\.0\.readerFields/)]),
    );
  });

  it("a model that is not a Model, and a tool that is a bare JSON Schema, are named with the fix", async () => {
    const task = await untouchedTask();
    const agent = untyped({ model: "openai:gpt-5", tools: [{ type: "object" }] });
    const error = await configErrorOf(() => runLeg({ store: task.store, agent }, task.taskId));
    expect(error.message).toContain("agent.model must be a Model ({ id: string, stream(request, signal) })");
    expect(error.message).toContain("got a string");
    expect(error.message).toContain("agent.tools.0.inputSchema is missing: define the tool with defineTool");
    expect(error.message).toContain('agent.tools.0 has unknown key "type"');
  });

  it("checks the agents a child may run as, by their path, and an agent that delegates to itself", async () => {
    const task = await untouchedTask();
    const helper = untyped({ instructions: "help" });
    const error = await configErrorOf(() =>
      runLeg({ store: task.store, agent: { model: model(), delegation: { agents: { helper } } } }, task.taskId),
    );
    expect(error.message).toBe(
      "runLeg: agent.delegation.agents.helper.model is missing: pass a Model, e.g. fromAiSdk(...) of @sema-agent/ai-sdk",
    );
    const selfish: Agent = { model: model() };
    selfish.delegation = { agents: { again: selfish } };
    expect(() => validateAgent(selfish)).not.toThrow();
  });

  it("the host's options and the leg's options are strict too", async () => {
    const task = await untouchedTask();
    const options = { store: task.store, agent: { model: model() }, leaseTTLMs: 5000 } as HarnessOptions;
    const error = await configErrorOf(() => runLeg(options, task.taskId));
    expect(error.message).toBe(
      'runLeg: unknown key "leaseTTLMs" (did you mean "leaseTtlMs"?): remove it or fix the spelling',
    );
    const noStore = await configErrorOf(() =>
      runLeg({ agent: { model: model() } } as unknown as HarnessOptions, task.taskId),
    );
    expect(noStore.message).toContain("store is missing: pass a Store, e.g. new MemoryStore()");
    const legError = await configErrorOf(() =>
      runLeg({ store: task.store, agent: { model: model() } }, task.taskId, {
        sginal: new AbortController().signal,
      } as object),
    );
    expect(legError.message).toBe(
      'runLeg: legOptions has unknown key "sginal" (did you mean "signal"?): remove it or fix the spelling',
    );
    await task.expectUntouched();
  });

  it("a valid agent runs as before", async () => {
    const task = await untouchedTask();
    const outcome = await runLeg({ store: task.store, agent: { model: model(), tools: [add] } }, task.taskId);
    expect(outcome.status).toBe("completed");
  });

  it("every unknown key, however it is spelt, is named in the message", () => {
    const known = new Set(Object.keys(agentSchema.shape));
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !known.has(key) && key !== "__proto__"),
          { minLength: 1, maxLength: 4 },
        ),
        (keys) => {
          const agent: Record<string, unknown> = { model: model() };
          for (const key of keys) agent[key] = 1;
          let message = "";
          try {
            validateAgent(agent);
          } catch (error) {
            message = error instanceof ConfigError ? error.message : "";
          }
          for (const key of keys) expect(message).toContain(JSON.stringify(key));
        },
      ),
    );
  });

  it("a prototype's key is still unknown (constructor, toString)", () => {
    expect(() => validateAgent(untyped({ model: model(), constructor: 1, toString: 2 }))).toThrow(
      /unknown keys "constructor", "toString"/,
    );
  });
});

describe("defineTool checks its definition", () => {
  it("a tool without execute, with an unknown key, or a name providers refuse is a ConfigError", async () => {
    const error = await configErrorOf(() =>
      defineTool({ name: "get weather", description: "", inputSchema: z.object({}), exec: () => "" } as never),
    );
    expect(error.message).toContain("defineTool get weather: ");
    expect(error.message).toContain("name must match");
    expect(error.message).toContain("execute is missing");
    expect(error.message).toContain('unknown key "exec"');
    const noSchema = await configErrorOf(() => defineTool({ name: "x", description: "", execute: () => "" } as never));
    expect(noSchema.message).toBe(
      "defineTool x: inputSchema is missing: pass a zod schema (z.object({ … })), another Standard Schema, or a JSON Schema object",
    );
    const notObject = await configErrorOf(() =>
      defineTool({ name: "x", description: "", inputSchema: z.string(), execute: () => "" }),
    );
    expect(notObject.message).toContain(
      'inputSchema must describe an object (JSON Schema type "object"), got type "string"',
    );
  });
});

// Type-level: a tool typed by a raw JSON Schema is still a Tool an agent holds.
const rawTools: Tool[] = [
  defineTool({
    name: "raw",
    description: "",
    inputSchema: { type: "object", properties: {} },
    execute: () => "",
  }),
];
void rawTools;

describe("the fast checks of runLeg's arguments", () => {
  const model = new ScriptedModel([{ text: "Done." }]);
  // A tool a full check has passed (so the fast check knows it), and one no check has seen.
  const known = defineTool({ name: "known", description: "k", inputSchema: z.object({}), execute: () => "k" });
  validateAgent({ model, tools: [known] });
  const unknown = { ...known, name: "" };
  const value = fc.oneof(
    fc.constant(model),
    fc.constant({ id: 1, stream: () => undefined }),
    fc.constant([known]),
    fc.constant([unknown]),
    fc.constant([known, unknown]),
    fc.constant([]),
    fc.constant(new MemoryStore()),
    fc.constant({ append: () => undefined }),
    fc.string({ maxLength: 3 }),
    fc.constant(undefined),
    fc.integer(),
    fc.constant(null),
  );
  const key = fc.constantFrom("model", "tools", "name", "store", "agent", "instructions", "x");
  const object = fc.dictionary(key, value, { maxKeys: 4 });

  it("a plain agent: yes only to what the agent schema accepts, and to the usual { model, tools }", () => {
    fc.assert(
      fc.property(object, (agent) => {
        if (isPlainAgent(agent)) expect(agentSchema.safeParse(agent).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
    expect(isPlainAgent({ model, tools: [known] })).toBe(true);
    expect(isPlainAgent({ model, tools: [unknown] })).toBe(false);
  });

  it("plain harness options: yes only to what the options schema accepts, and to the usual { store, agent }", () => {
    fc.assert(
      fc.property(object, (options) => {
        if (isPlainHarness(options)) expect(harnessSchema.safeParse(options).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
    expect(isPlainHarness({ store: new MemoryStore(), agent: { model } })).toBe(true);
    expect(isPlainHarness({ store: new MemoryStore(), agent: { model }, leaseTtlMs: 5 })).toBe(false);
  });
});
