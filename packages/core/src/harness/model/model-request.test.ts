// The model request as a pure function of the log and the agent: the agent's settings are the
// defaults, the task's recorded settings win key by key, the standing instructions are there
// unless the agent says otherwise, and a forced tool choice gives way once it has been honoured.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fold } from "../../core/fold.ts";
import { STANDING_INSTRUCTIONS } from "../../core/standing-instructions.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { make } from "../../testing/event-factories.ts";
import { noteTool } from "../../testing/note-tool.ts";
import type { Agent } from "../agent.ts";
import { buildModelRequest, requestSettings, toolChoiceProblem, toolSpecs } from "./model-request.ts";

const { note } = noteTool();
const model = { id: "script:inline", stream: () => [][Symbol.iterator]() as never };

function created(settings?: Extract<TaskEvent, { type: "task_created" }>["settings"]): TaskEvent {
  const base = make.created("p1", "Say hi");
  return settings === undefined ? base : { ...base, v: 2, settings };
}

function userMessage(entryId: string, content: string): TaskEvent {
  return { type: "user_message", v: 1, entryId, content, inputIds: [] };
}

function request(agent: Partial<Agent>, events: TaskEvent[]) {
  const full: Agent = { model, tools: [note], ...agent };
  return buildModelRequest(fold(events), requestSettings(full, full.tools ?? []), toolSpecs(full.tools ?? []));
}

describe("the model request", () => {
  it("carries the agent's settings when the task recorded none", () => {
    const built = request(
      {
        temperature: 0.3,
        topP: 0.9,
        maxOutputTokens: 200,
        stopSequences: ["END"],
        seed: 7,
        toolChoice: "required",
        providerOptions: { openai: { store: false } },
      },
      [created()],
    );
    expect(built).toMatchObject({
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 200,
      stopSequences: ["END"],
      seed: 7,
      toolChoice: "required",
      providerOptions: { openai: { store: false } },
    });
    expect(built).not.toHaveProperty("responseFormat");
  });

  it("lets the task's recorded settings win, key by key, provider options merged per provider", () => {
    const built = request(
      {
        temperature: 0.3,
        seed: 7,
        toolChoice: "auto",
        providerOptions: { openai: { store: false, user: "a" }, anthropic: { sendReasoning: false } },
      },
      [
        created({
          temperature: 0,
          toolChoice: { type: "tool", toolName: "note" },
          providerOptions: { openai: { user: "b" } },
        }),
      ],
    );
    expect(built.temperature).toBe(0);
    expect(built.seed).toBe(7);
    expect(built.toolChoice).toEqual({ type: "tool", toolName: "note" });
    expect(built.providerOptions).toEqual({
      openai: { store: false, user: "b" },
      anthropic: { sendReasoning: false },
    });
  });

  it("is the same request for the same log, whichever process folds it", () => {
    const events = [created({ temperature: 0.5, stopSequences: ["x"] })];
    const agent = { instructions: "Be brief.", seed: 1 };
    expect(JSON.stringify(request(agent, events))).toBe(JSON.stringify(request(agent, structuredClone(events))));
  });

  it("has no keys for settings nobody gave (the request of an agent without them is unchanged)", () => {
    expect(Object.keys(request({}, [created()])).sort()).toEqual(["system", "tools", "transcript"]);
  });

  it("asks for the agent's output schema, or the task's recorded one instead", () => {
    const output = z.strictObject({ name: z.string(), age: z.number() });
    const own = request({ output }, [created()]);
    expect(own.responseFormat).toEqual({
      type: "json",
      schema: {
        type: "object",
        properties: { name: { type: "string" }, age: { type: "number" } },
        required: ["name", "age"],
        additionalProperties: false,
      },
    });
    const plain = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    expect(request({ output: plain }, [created()]).responseFormat).toEqual({ type: "json", schema: plain });
    const override = { type: "array", items: { type: "string" } };
    expect(request({ output }, [created({ output: override })]).responseFormat).toEqual({
      type: "json",
      schema: override,
    });
  });

  it("appends the instructions to the standing ones, or sends them alone with standingInstructions: false", () => {
    expect(request({ instructions: "Be brief." }, [created()]).system).toBe(`${STANDING_INSTRUCTIONS}\n\nBe brief.`);
    expect(request({}, [created()]).system).toBe(STANDING_INSTRUCTIONS);
    expect(request({ instructions: "Be brief.", standingInstructions: false }, [created()]).system).toBe("Be brief.");
    expect(request({ standingInstructions: false }, [created()]).system).toBe("");
  });

  it("calls instructions given as a function with the task's folded state", () => {
    const seen: string[] = [];
    const instructions = (state: { readonly principal: string; readonly legs: number }) => {
      seen.push(state.principal);
      return `You work for ${state.principal}.`;
    };
    expect(request({ instructions }, [created()]).system).toBe(`${STANDING_INSTRUCTIONS}\n\nYou work for p1.`);
    expect(seen).toEqual(["p1"]);
  });

  it("keeps a forced tool choice until the model has called a tool after the latest user message", () => {
    const start = [created(), userMessage("u1", "Say hi")];
    const agent = { toolChoice: { type: "tool", toolName: "note" } } as const;
    expect(request(agent, start).toolChoice).toEqual({ type: "tool", toolName: "note" });
    const called = [...start, make.turn(1, "", [{ callId: "c1", name: "note", input: { text: "x" } }])];
    expect(request(agent, called).toolChoice).toBe("auto");
    expect(request({ toolChoice: "required" }, called).toolChoice).toBe("auto");
    expect(request({ toolChoice: "none" }, called).toolChoice).toBe("none");
    // A new user message asks again.
    expect(request(agent, [...called, userMessage("u2", "Again")]).toolChoice).toEqual(agent.toolChoice);
  });

  it("names a tool choice the agent cannot honour", () => {
    const built = request({ toolChoice: { type: "tool", toolName: "search" } }, [created()]);
    expect(toolChoiceProblem(built)).toBe(
      'toolChoice names the tool "search", which the agent does not have (its tools: note)',
    );
    expect(toolChoiceProblem(request({ toolChoice: { type: "tool", toolName: "note" } }, [created()]))).toBeUndefined();
  });
});
