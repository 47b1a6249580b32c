// The app's agents. `npm start` (index.ts) asks one a question; `npm run serve` (sema serve) reads
// this file and serves them over HTTP. Change the tool, the instructions, or add agents here.
import { resolveModel } from "@sema-agent/ai-sdk";
import { defineTool, type Model } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

// Example data: a real tool would call an API or read a database.
const TEMPERATURES: Readonly<Record<string, number>> = { Lisbon: 25, Oslo: 4, Tokyo: 18 };

/** A tool the model may call: its input is checked against the schema before `execute` runs. */
export const getWeather = defineTool({
  name: "get_weather",
  description: "The temperature in a city now, in °C",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => {
    const celsius = TEMPERATURES[city];
    if (celsius === undefined) throw new Error(`no weather for ${city}: try Lisbon, Oslo or Tokyo`);
    return { city, celsius };
  },
});

/**
 * The model: SEMA_MODEL (`anthropic:<id>`, `openai:<id>`, `openai-compatible:<id>`) when set, else
 * Anthropic or OpenAI when its API key is set, else a scripted model that runs offline. The
 * scripted one always asks for Lisbon's weather and answers from the tool's result.
 */
export function pickModel(env: Readonly<Record<string, string | undefined>>): Model {
  const spec =
    env.SEMA_MODEL ||
    (env.ANTHROPIC_API_KEY ? "anthropic:claude-sonnet-4-5" : env.OPENAI_API_KEY ? "openai:gpt-5-mini" : "");
  if (spec !== "") return resolveModel(spec, env);
  // by-transcript: each task plays the script from its own log, so one model serves every task.
  return new ScriptedModel(
    [{ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }, { text: "It is 25 °C in Lisbon." }],
    { id: "script:offline", mode: "by-transcript" },
  );
}

/** The agent: a model, its instructions and its tools. */
export const assistant = {
  model: pickModel(process.env),
  instructions: "You answer questions about the weather. Use get_weather; never guess a temperature.",
  tools: [getWeather],
};

// What `sema serve` reads: the agents by name (the first is the default).
export default { agents: { assistant } };
