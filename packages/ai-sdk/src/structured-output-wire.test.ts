/**
 * Settings and structured output on the wire: a whole Sema task (startTask + runLeg) with the real
 * `@ai-sdk/openai` (Responses and chat) and `@ai-sdk/anthropic` providers against the replay
 * server. The captured request carries the task's recorded settings and the output schema in the
 * vendor's own format; the JSON answer streamed back completes the task with the parsed output.
 */
import { createOpenAI } from "@ai-sdk/openai";
import {
  type Agent,
  defineTool,
  MemoryStore,
  type Model,
  runLeg,
  type StartTaskInput,
  startTask,
} from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromAiSdk } from "./from-ai-sdk.ts";
import { resolveModel } from "./resolve-model.ts";
import { sseEvents } from "./test-support/replay-server.ts";
import { replayServerForSuite } from "./test-support/wire-suite.ts";

const Weather = z.strictObject({ city: z.string(), temperatureF: z.number(), conditions: z.string() });
const WEATHER_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, temperatureF: { type: "number" }, conditions: { type: "string" } },
  required: ["city", "temperatureF", "conditions"],
  additionalProperties: false,
};
const ANSWER = '{"city":"San Francisco","temperatureF":64,"conditions":"foggy"}';

const lookup = defineTool({
  name: "get_weather",
  description: "Get the current weather in a given location",
  inputSchema: z.object({ location: z.string() }),
  execute: async () => "64°F and foggy",
});

/** Start a task with `settings`, run one leg as `agent`, and return the outcome and the request body. */
async function runTask(
  server: ReturnType<typeof replayServerForSuite>,
  agent: Agent,
  settings: Omit<StartTaskInput, "objective">,
  fixture: string,
) {
  server.reply({ events: sseEvents(fixture) });
  const store = new MemoryStore();
  const taskId = await startTask(store, { objective: "Weather in San Francisco, as JSON.", ...settings });
  const outcome = await runLeg({ store, agent }, taskId);
  const body = JSON.parse(server.requests.at(-1)?.body ?? "{}");
  return { outcome, body, created: (await store.read(taskId))[0] };
}

function openaiResponses(baseURL: string): Model {
  return resolveModel(
    "openai:gpt-4.1",
    { OPENAI_API_KEY: "sk-test-key", OPENAI_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );
}

function openaiChat(baseURL: string): Model {
  return fromAiSdk(createOpenAI({ apiKey: "sk-test-key", baseURL }).chat("gpt-4o-mini"), { id: "openai:gpt-4o-mini" });
}

function anthropic(baseURL: string): Model {
  return resolveModel(
    "anthropic:claude-sonnet-4-5",
    { ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );
}

describe("openai responses: settings and structured output on the wire", () => {
  const server = replayServerForSuite();

  it("sends the recorded settings and the schema as text.format json_schema; the JSON completes the task", async () => {
    const { outcome, body } = await runTask(
      server,
      { model: openaiResponses(server.baseURL), tools: [lookup], output: Weather, temperature: 1, topP: 0.5 },
      {
        temperature: 0.1,
        maxOutputTokens: 300,
        toolChoice: "none",
        providerOptions: { openai: { user: "task-42" } },
      },
      "openai-responses/json.sse",
    );
    expect(body).toMatchObject({
      model: "gpt-4.1",
      temperature: 0.1,
      top_p: 0.5,
      max_output_tokens: 300,
      tool_choice: "none",
      user: "task-42",
      text: { format: { type: "json_schema", strict: true, name: "response", schema: WEATHER_SCHEMA } },
    });
    expect(outcome).toMatchObject({ status: "completed", result: ANSWER });
    expect(Weather.parse(JSON.parse(outcome.result ?? ""))).toEqual({
      city: "San Francisco",
      temperatureF: 64,
      conditions: "foggy",
    });
  });

  it("sends a named tool choice as OpenAI's function choice", async () => {
    const { body } = await runTask(
      server,
      { model: openaiResponses(server.baseURL), tools: [lookup] },
      { toolChoice: { type: "tool", toolName: "get_weather" } },
      "openai-responses/text.sse",
    );
    expect(body.tool_choice).toEqual({ type: "function", name: "get_weather" });
  });
});

describe("openai chat: settings and structured output on the wire", () => {
  const server = replayServerForSuite();

  it("sends seed, stop, top_p and the schema as response_format json_schema; the JSON completes the task", async () => {
    const { outcome, body } = await runTask(
      server,
      { model: openaiChat(server.baseURL), tools: [lookup], seed: 1 },
      {
        output: Weather,
        seed: 7,
        topP: 0.9,
        stopSequences: ["\n\n\n"],
        temperature: 0,
        toolChoice: "required",
      },
      "openai-chat/json.sse",
    );
    expect(body).toMatchObject({
      model: "gpt-4o-mini",
      seed: 7,
      top_p: 0.9,
      stop: ["\n\n\n"],
      temperature: 0,
      tool_choice: "required",
      response_format: {
        type: "json_schema",
        json_schema: { name: "response", strict: true, schema: WEATHER_SCHEMA },
      },
    });
    expect(outcome).toMatchObject({ status: "completed", result: ANSWER });
  });

  it("records a task's frequencyPenalty on task_created and sends it as frequency_penalty, over the agent's", async () => {
    const { created, body } = await runTask(
      server,
      { model: openaiChat(server.baseURL), frequencyPenalty: 0.2 },
      { frequencyPenalty: 0.5 },
      "openai-chat/text.sse",
    );
    expect(created).toMatchObject({ type: "task_created", v: 2, settings: { frequencyPenalty: 0.5 } });
    expect(body.frequency_penalty).toBe(0.5);
  });

  it("sends the agent's frequencyPenalty when the task has none", async () => {
    const { body } = await runTask(
      server,
      { model: openaiChat(server.baseURL), frequencyPenalty: -0.25 },
      {},
      "openai-chat/text.sse",
    );
    expect(body.frequency_penalty).toBe(-0.25);
  });
});

describe("anthropic: settings and structured output on the wire", () => {
  const server = replayServerForSuite();

  it("sends the schema as Anthropic's native output format; the JSON completes the task", async () => {
    const { outcome, body } = await runTask(
      server,
      { model: anthropic(server.baseURL), tools: [lookup], output: Weather, maxOutputTokens: 512 },
      { topP: 0.8, stopSequences: ["END"], toolChoice: { type: "tool", toolName: "get_weather" } },
      "anthropic/json.sse",
    );
    expect(body).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      top_p: 0.8,
      stop_sequences: ["END"],
      tool_choice: { type: "tool", name: "get_weather" },
      output_config: { format: { type: "json_schema", schema: WEATHER_SCHEMA } },
    });
    expect(outcome).toMatchObject({ status: "completed", result: ANSWER });
  });

  it("with providerOptions asking for the JSON tool, sends the schema as the `json` tool it must call; its input completes the task", async () => {
    const { outcome, body } = await runTask(
      server,
      { model: anthropic(server.baseURL), output: Weather },
      { providerOptions: { anthropic: { structuredOutputMode: "jsonTool" } } },
      "anthropic/json-tool.sse",
    );
    expect(body.tools).toEqual([expect.objectContaining({ name: "json", input_schema: WEATHER_SCHEMA })]);
    // The provider forces a tool call ("any"); `json` is the only tool offered.
    expect(body.tool_choice).toMatchObject({ type: "any" });
    expect(body).not.toHaveProperty("output_config");
    expect(outcome).toMatchObject({ status: "completed", result: ANSWER });
  });
});
