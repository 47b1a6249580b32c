/**
 * The real `@ai-sdk/openai` chat-completions model (`createOpenAI(...).chat(id)`) and the
 * `openai-compatible:` provider (Ollama, vLLM, llama.cpp server, LM Studio speak the same stream)
 * against a loopback server replaying OpenAI's chat.completion.chunk stream (fixtures/openai-chat/).
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { Model } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { fromAiSdk } from "./from-ai-sdk.ts";
import { resolveModel } from "./resolve-model.ts";
import { sseEvents, startReplayServer } from "./test-support/replay-server.ts";
import {
  collect,
  describeWireSuite,
  firstToolCall,
  replayServerForSuite,
  textOf,
  WEATHER_REQUEST,
  type WireVendor,
} from "./test-support/wire-suite.ts";

function openaiChat(baseURL: string): Model {
  return fromAiSdk(createOpenAI({ apiKey: "sk-test-key", baseURL }).chat("gpt-4o-mini"), { id: "openai:gpt-4o-mini" });
}

function compatible(baseURL: string): Model {
  return resolveModel(
    "openai-compatible:llama3.2",
    { OPENAI_COMPATIBLE_BASE_URL: baseURL },
    { retry: { maxRetries: 0 } },
  );
}

const CHAT: Omit<WireVendor, "name" | "model"> = {
  fixtures: "openai-chat",
  path: "/v1/chat/completions",
  // OpenAI sends both; the millisecond header is the precise one.
  rateLimit: { headers: { "retry-after": "2", "retry-after-ms": "1200" }, retryAfterMs: 1_200 },
  textUsage: { inputTokens: 728, outputTokens: 15, cachedInputTokens: 256, reasoningTokens: 0 },
  toolUsage: { inputTokens: 82, outputTokens: 18, cachedInputTokens: 0, reasoningTokens: 0 },
  toolCallId: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
  eventsThroughFirstDelta: 2,
};

describeWireSuite({ ...CHAT, name: "openai chat completions", model: openaiChat });
describeWireSuite({ ...CHAT, name: "openai-compatible", model: compatible });

describe.each([
  // @ai-sdk/openai wraps an `error-text` result as JSON; @ai-sdk/openai-compatible sends it as is.
  ["openai chat completions", openaiChat, JSON.stringify({ error: "upstream timeout" })],
  ["openai-compatible", compatible, "upstream timeout"],
] as const)("%s: wire, request bytes", (_name, makeModel, errorContent) => {
  const server = replayServerForSuite();

  it("sends the system prompt, the message, the tool's JSON schema and asks for usage", async () => {
    server.reply({ events: sseEvents("openai-chat/text.sse") });
    await collect(makeModel(server.baseURL));
    const body = JSON.parse(server.requests.at(-1)?.body ?? "");
    expect(body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      messages: [
        { role: "system", content: "You are a weather assistant." },
        { role: "user", content: "What is the weather in San Francisco?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Get the current weather in a given location",
            parameters: WEATHER_REQUEST.tools[0]?.inputSchema,
          },
        },
      ],
      tool_choice: "auto",
    });
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(1024);
  });

  it("round-trips an assistant tool call and its results in the next request", async () => {
    server.reply({ events: sseEvents("openai-chat/tool-call.sse") }, { events: sseEvents("openai-chat/text.sse") });
    const model = makeModel(server.baseURL);
    const { call } = await firstToolCall(model);

    const second = await collect(model, {
      ...WEATHER_REQUEST,
      transcript: [
        ...WEATHER_REQUEST.transcript,
        {
          role: "assistant",
          text: "",
          toolCalls: [
            { callId: call.toolCallId, name: call.toolName, input: JSON.parse(call.input) },
            { callId: "call_second", name: "get_weather", input: { location: "Oslo" } },
          ],
        },
        { role: "tool", callId: call.toolCallId, name: call.toolName, status: "ok", content: "64°F and foggy" },
        { role: "tool", callId: "call_second", name: "get_weather", status: "error", content: "upstream timeout" },
      ],
    });
    expect(textOf(second)).toBe("Hello, world!");

    const messages = JSON.parse(server.requests.at(-1)?.body ?? "").messages;
    expect(messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
            type: "function",
            function: {
              name: "get_weather",
              arguments: JSON.stringify({ location: "San Francisco, CA", unit: "fahrenheit" }),
            },
          },
          {
            id: "call_second",
            type: "function",
            function: { name: "get_weather", arguments: JSON.stringify({ location: "Oslo" }) },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", content: "64°F and foggy" },
      // Chat completions have no error flag on a tool message: the text itself says it failed.
      { role: "tool", tool_call_id: "call_second", content: errorContent },
    ]);
  });
});

describe("openai chat completions: wire, auth header", () => {
  it("sends the API key as a bearer token, and none to a keyless compatible server", async () => {
    const server = await startReplayServer();
    try {
      server.reply({ events: sseEvents("openai-chat/text.sse") }, { events: sseEvents("openai-chat/text.sse") });
      await collect(openaiChat(server.baseURL));
      expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test-key");
      await collect(compatible(server.baseURL));
      expect(server.requests[1]?.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
