/**
 * The real `@ai-sdk/openai` default model (`createOpenAI(...)(id)`, the Responses API), built by
 * `resolveModel` as a host would, against a loopback server replaying OpenAI's Responses stream
 * events (fixtures/openai-responses/).
 */
import { describe, expect, it } from "vitest";
import { resolveModel } from "./resolve-model.ts";
import { sseEvents } from "./test-support/replay-server.ts";
import {
  collect,
  describeWireSuite,
  firstToolCall,
  replayServerForSuite,
  textOf,
  WEATHER_REQUEST,
} from "./test-support/wire-suite.ts";

function openai(baseURL: string) {
  return resolveModel(
    "openai:gpt-4.1",
    { OPENAI_API_KEY: "sk-test-key", OPENAI_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );
}

describeWireSuite({
  name: "openai responses",
  fixtures: "openai-responses",
  path: "/v1/responses",
  model: openai,
  rateLimit: { headers: { "retry-after": "2", "retry-after-ms": "1200" }, retryAfterMs: 1_200 },
  textUsage: { inputTokens: 728, outputTokens: 15, cachedInputTokens: 256, reasoningTokens: 0 },
  toolUsage: { inputTokens: 82, outputTokens: 18, cachedInputTokens: 0, reasoningTokens: 0 },
  toolCallId: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
  eventsThroughFirstDelta: 5,
});

describe("openai responses: wire, request bytes", () => {
  const server = replayServerForSuite();

  it("sends the system prompt, the message and the tool's JSON schema", async () => {
    server.reply({ events: sseEvents("openai-responses/text.sse") });
    await collect(openai(server.baseURL));
    const request = server.requests.at(-1);
    expect(request?.headers.authorization).toBe("Bearer sk-test-key");
    const body = JSON.parse(request?.body ?? "");
    expect(body).toMatchObject({
      model: "gpt-4.1",
      stream: true,
      // The transcript travels whole every time; OpenAI is told to keep nothing.
      store: false,
      max_output_tokens: 1024,
      temperature: 0.2,
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Get the current weather in a given location",
          parameters: WEATHER_REQUEST.tools[0]?.inputSchema,
        },
      ],
      tool_choice: "auto",
    });
    expect(body.input).toEqual([
      { role: "system", content: "You are a weather assistant." },
      { role: "user", content: [{ type: "input_text", text: "What is the weather in San Francisco?" }] },
    ]);
  });

  it("round-trips an assistant tool call and its results in the next request", async () => {
    server.reply(
      { events: sseEvents("openai-responses/tool-call.sse") },
      { events: sseEvents("openai-responses/text.sse") },
    );
    const model = openai(server.baseURL);
    const { call } = await firstToolCall(model);

    const second = await collect(model, {
      ...WEATHER_REQUEST,
      transcript: [
        ...WEATHER_REQUEST.transcript,
        {
          role: "assistant",
          text: "",
          toolCalls: [{ callId: call.toolCallId, name: call.toolName, input: JSON.parse(call.input) }],
        },
        { role: "tool", callId: call.toolCallId, name: call.toolName, status: "ok", content: "64°F and foggy" },
        { role: "user", entryId: "e2", content: "And in Oslo?" },
      ],
    });
    expect(textOf(second)).toBe("Hello, world!");

    const input = JSON.parse(server.requests.at(-1)?.body ?? "").input;
    expect(input.slice(2)).toEqual([
      {
        type: "function_call",
        call_id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
        name: "get_weather",
        arguments: JSON.stringify({ location: "San Francisco, CA", unit: "fahrenheit" }),
      },
      { type: "function_call_output", call_id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", output: "64°F and foggy" },
      { role: "user", content: [{ type: "input_text", text: "And in Oslo?" }] },
    ]);
  });
});
