// The one merge of model settings: the agent's defaults, then a task's recorded settings on top,
// key by key; provider options per provider; an absent (or undefined) setting is never written.
import { describe, expect, it } from "vitest";
import { MODEL_SETTING_KEYS, type ModelSettings, mergeModelSettings, modelSettingsSchema } from "./model-settings.ts";
import { taskSettingsSchema } from "./task-event.ts";

const agent: ModelSettings = {
  temperature: 0.3,
  topP: 0.9,
  maxOutputTokens: 200,
  stopSequences: ["END"],
  seed: 7,
  toolChoice: "required",
  providerOptions: { openai: { store: false, user: "agent" }, anthropic: { sendReasoning: true } },
};

/** Settings as a JavaScript caller may hand them over, an unset one `undefined` whatever the types say. */
function javascript(settings: Record<string, unknown>): ModelSettings {
  const out: ModelSettings = {};
  Object.assign(out, settings);
  return out;
}

describe("mergeModelSettings", () => {
  it("takes every setting of the layer on top that it has, and the rest from below", () => {
    const merged = mergeModelSettings(agent, { temperature: 0, stopSequences: [], toolChoice: "none" });
    expect(merged).toEqual({ ...agent, temperature: 0, stopSequences: [], toolChoice: "none" });
  });

  it("merges provider options per provider, the top layer's keys winning", () => {
    const merged = mergeModelSettings(agent, { providerOptions: { openai: { user: "task" }, google: { x: 1 } } });
    expect(merged.providerOptions).toEqual({
      openai: { store: false, user: "task" },
      anthropic: { sendReasoning: true },
      google: { x: 1 },
    });
    // One side alone is kept as it is.
    expect(mergeModelSettings(agent, {}).providerOptions).toBe(agent.providerOptions);
  });

  it("counts an undefined setting as not set, on either side, and never writes one", () => {
    const merged = mergeModelSettings(
      javascript({ seed: 1, temperature: undefined }),
      javascript({ topP: undefined, seed: 2 }),
    );
    expect(merged).toEqual({ seed: 2 });
    expect(Object.keys(merged)).toEqual(["seed"]);
    expect(Object.keys(mergeModelSettings(undefined, undefined))).toEqual([]);
  });

  it("reads only the settings of wider objects (an agent, a task's settings with their output)", () => {
    const wider = { ...agent, name: "a", output: { type: "object" } };
    expect(Object.keys(mergeModelSettings(wider, { output: { type: "string" } } as ModelSettings)).sort()).toEqual(
      Object.keys(agent).sort(),
    );
  });

  it("writes into the object it is given, only its setting keys", () => {
    const request = { system: "s", temperature: 9 };
    expect(mergeModelSettings({ seed: 1 }, { temperature: 0 }, request)).toBe(request);
    expect(request).toEqual({ system: "s", temperature: 0, seed: 1 });
  });

  it("returns a new object: neither layer is changed", () => {
    const over: ModelSettings = { seed: 1 };
    const merged = mergeModelSettings(agent, over);
    merged.temperature = 2;
    expect(agent.temperature).toBe(0.3);
    expect(over).toEqual({ seed: 1 });
  });
});

describe("the model settings schema", () => {
  it("names every setting once; a task's settings are those and its output", () => {
    expect(MODEL_SETTING_KEYS).toEqual(Object.keys(modelSettingsSchema.shape));
    expect(Object.keys(taskSettingsSchema.shape)).toEqual([...MODEL_SETTING_KEYS, "output"]);
  });

  it("refuses an unknown key and an undefined setting, as the log's schema always has", () => {
    expect(modelSettingsSchema.safeParse({ temprature: 1 }).success).toBe(false);
    expect(modelSettingsSchema.safeParse({ temperature: undefined }).success).toBe(false);
    expect(taskSettingsSchema.safeParse({ output: { type: "object" }, seed: 3 }).success).toBe(true);
  });
});
