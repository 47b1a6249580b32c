// startTask records the settings a task starts with on task_created (v 2, only when there are
// some), refuses malformed ones, and every leg of the task — in any process — sends them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { validateEvents } from "../../core/event-validation.ts";
import { isSemaError } from "../../protocol/errors.ts";
import { noteTool } from "../../testing/note-tool.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { isPlainStartInput, startSchema, startTask } from "./start-task.ts";

describe("startTask settings", () => {
  it("records them on task_created v 2; a task without settings is still v 1", async () => {
    const store = new MemoryStore();
    const plain = await startTask(store, { objective: "Hi" });
    expect((await store.read(plain))[0]).toMatchObject({ type: "task_created", v: 1 });
    expect((await store.read(plain))[0]).not.toHaveProperty("settings");
    const tuned = await startTask(store, {
      objective: "Hi",
      temperature: 0,
      topP: 0.5,
      maxOutputTokens: 64,
      stopSequences: ["STOP"],
      seed: 42,
      toolChoice: "none",
      providerOptions: { openai: { store: false } },
    });
    expect((await store.read(tuned))[0]).toMatchObject({
      type: "task_created",
      v: 2,
      settings: {
        temperature: 0,
        topP: 0.5,
        maxOutputTokens: 64,
        stopSequences: ["STOP"],
        seed: 42,
        toolChoice: "none",
        providerOptions: { openai: { store: false } },
      },
    });
  });

  it("refuses malformed settings with InvalidInput, naming the key, and writes nothing", async () => {
    const store = new MemoryStore();
    const attempt = startTask(store, { objective: "Hi", taskId: "t1", seed: 1.5 });
    await expect(attempt).rejects.toSatisfy((error) => isSemaError(error, "InvalidInput"));
    await expect(attempt).rejects.toThrow(/seed/);
    await expect(startTask(store, { objective: "Hi", toolChoice: { type: "tool", toolName: "" } })).rejects.toThrow(
      /toolChoice/,
    );
    await expect(store.getTask("t1")).rejects.toSatisfy((error) => isSemaError(error, "TaskNotFound"));
  });

  it("a v 2 event without settings, or a v 1 event with them, is invalid", () => {
    const base = { type: "task_created", objective: "Hi", principal: "p" };
    expect(() => validateEvents([{ ...base, v: 2 }])).toThrow();
    expect(() => validateEvents([{ ...base, v: 1, settings: { seed: 1 } }])).toThrow();
    expect(() => validateEvents([{ ...base, v: 2, settings: { seed: 1 } }])).not.toThrow();
  });

  it("every leg sends the recorded settings over the agent's, whichever agent object runs it", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Hi", temperature: 0, seed: 9 });
    const first = new ScriptedModel([{ text: "" }], { mode: "by-transcript" });
    // A leg that parks (interrupt) and one in "another process", with a fresh agent object.
    const controller = new AbortController();
    controller.abort();
    await runLeg({ store, agent: { model: first, temperature: 1 } }, taskId, { signal: controller.signal });
    const second = new ScriptedModel([{ text: "Hello." }], { mode: "by-transcript" });
    const outcome = await runLeg({ store, agent: { model: second, temperature: 1, topP: 0.1 } }, taskId);
    expect(outcome.status).toBe("completed");
    expect(second.requests[0]).toMatchObject({ temperature: 0, seed: 9, topP: 0.1 });
  });

  it("a tool choice naming a tool the agent lacks fails the task with InvalidInput, never leaves it running", async () => {
    const store = new MemoryStore();
    const { note } = noteTool();
    const taskId = await startTask(store, { objective: "Hi", toolChoice: { type: "tool", toolName: "search" } });
    const model = new ScriptedModel([]);
    const outcome = await runLeg({ store, agent: { model, tools: [note] } }, taskId);
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toEqual({
      code: "InvalidInput",
      message: 'toolChoice names the tool "search", which the agent does not have (its tools: note)',
    });
    expect(model.calls).toBe(0);
  });
});

describe("startTask's fast input check", () => {
  const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constant(""));
  const edge = fc.oneof(
    text,
    fc.constant(undefined),
    fc.integer(),
    fc.constant(null),
    fc.array(fc.string()),
    fc.object(),
  );
  const key = fc.constantFrom(
    "objective",
    "principal",
    "agent",
    "model",
    "taskId",
    "parentTaskId",
    "metadata",
    "x",
    "__proto__",
  );
  const input = fc.dictionary(key, edge, { maxKeys: 6 });

  it("says yes only to inputs the schema accepts", () => {
    fc.assert(
      fc.property(input, fc.boolean(), (given, parsed) => {
        // Also as JSON.parse makes it, where "__proto__" is an own key.
        const value = parsed ? (JSON.parse(JSON.stringify(given)) as object) : given;
        if (isPlainStartInput(value)) expect(startSchema.safeParse(value).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("says yes to the plain inputs most calls give", () => {
    expect(isPlainStartInput({ objective: "Go" })).toBe(true);
    expect(isPlainStartInput({ objective: "Go", principal: "acme", agent: "a", model: "m", taskId: "t" })).toBe(true);
    expect(isPlainStartInput({ objective: "Go", principal: "" })).toBe(false);
    expect(isPlainStartInput({ objective: "Go", metadata: {} })).toBe(false);
  });
});
