import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { isSemaError } from "../../protocol/errors.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool, jsonSchema } from "./define-tool.ts";

const weatherSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city"],
  additionalProperties: false,
};

describe("defineTool with a plain JSON Schema", () => {
  it("takes a raw JSON Schema object: shown to the model as given, and validating the model's input", async () => {
    const tool = defineTool({
      name: "weather",
      description: "the weather in a city",
      inputSchema: weatherSchema,
      execute: (input) => `sunny in ${String(input.city)}`,
    });
    const { $schema: _dialect, ...shown } = weatherSchema;
    expect(tool.jsonSchema).toEqual(shown);
    expect(await tool.inputSchema["~standard"].validate({ city: "Oslo", days: 2 })).toEqual({
      value: { city: "Oslo", days: 2 },
    });
    expect(await tool.inputSchema["~standard"].validate({ city: 7 })).toHaveProperty("issues");
    expect(await tool.inputSchema["~standard"].validate({ city: "Oslo", days: 0 })).toHaveProperty("issues");
    expect(await tool.inputSchema["~standard"].validate({ city: "Oslo", extra: true })).toHaveProperty("issues");
  });

  it("takes jsonSchema(...) with a type for execute's input", async () => {
    const tool = defineTool({
      name: "weather",
      description: "the weather in a city",
      inputSchema: jsonSchema<{ city: string; days?: number }>(weatherSchema),
      execute: (input) => `sunny in ${input.city.toUpperCase()}`,
    });
    expect(tool.jsonSchema.required).toEqual(["city"]);
    expect(await tool.inputSchema["~standard"].validate({})).toHaveProperty("issues");
  });

  it("in a leg: input that fails the JSON Schema never reaches execute, valid input does", async () => {
    const ran: unknown[] = [];
    const tool = defineTool({
      name: "weather",
      description: "the weather in a city",
      inputSchema: weatherSchema,
      execute: (input) => {
        ran.push(input);
        return "sunny";
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "weather", input: { town: "Oslo" } }] },
      { toolCalls: [{ name: "weather", input: { city: "Oslo" } }] },
      { text: "It is sunny." },
    ]);
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Weather in Oslo?" });
    const outcome = await runLeg({ store, agent: { model, tools: [tool] } }, taskId);
    expect(outcome.status).toBe("completed");
    expect(ran).toEqual([{ city: "Oslo" }]);
    const results = (await store.read(taskId)).filter((event) => event.type === "tool_result");
    expect(results.map((event) => (event.type === "tool_result" ? event.status : ""))).toEqual(["error", "ok"]);
  });

  it("a JSON Schema that does not describe an object, or cannot be read, is a ConfigError", () => {
    const error = (() => {
      try {
        defineTool({ name: "x", description: "", inputSchema: { type: "string" }, execute: () => "" });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(isSemaError(error, "ConfigError")).toBe(true);
    expect(String(error)).toContain('defineTool x: inputSchema must describe an object (JSON Schema type "object")');
    expect(() => jsonSchema("object" as never)).toThrow(/jsonSchema: needs a JSON Schema object, got a string/);
  });
});

describe("startTask checks its input", () => {
  it("an unknown key is refused by name before anything is written", async () => {
    const store = new MemoryStore();
    const error = await startTask(store, { objective: "x", principle: "acme" } as never).catch((thrown) => thrown);
    expect(isSemaError(error, "InvalidInput")).toBe(true);
    expect(String(error.message)).toBe(
      'startTask: unknown key "principle" (did you mean "principal"?): remove it or fix the spelling',
    );
    expect((await store.listTasks({ principal: "local" })).tasks).toEqual([]);
    expect((await store.listTasks({ principal: "acme" })).tasks).toEqual([]);
    const typed = await startTask(store, { objective: "x", metadata: { at: new Date() } } as never).catch((t) => t);
    expect(String(typed.message)).toBe("startTask: metadata.at must be JSON");
  });
});
