/**
 * The real `@ai-sdk/anthropic` provider against a loopback server replaying Anthropic's Messages
 * streaming format (fixtures/anthropic/), through `resolveModel` as a host would build it.
 */
import { describe, expect, it } from "vitest";
import { resolveModel } from "./resolve-model.ts";
import { fixture, sseEvents, startReplayServer } from "./test-support/replay-server.ts";
import {
  collect,
  describeWireSuite,
  firstToolCall,
  lastFailure,
  replayServerForSuite,
  textOf,
  WEATHER_REQUEST,
} from "./test-support/wire-suite.ts";

const ENV = { ANTHROPIC_API_KEY: "sk-ant-test-key" };
const NO_RETRY = { retry: { maxRetries: 0 } };

function anthropic(baseURL: string) {
  // No retries here: these cases check what one call reports. Retrying has its own case below.
  return resolveModel("anthropic:claude-sonnet-4-5", { ...ENV, ANTHROPIC_BASE_URL: baseURL }, NO_RETRY);
}

describeWireSuite({
  name: "anthropic",
  fixtures: "anthropic",
  path: "/v1/messages",
  model: anthropic,
  rateLimit: { headers: { "retry-after": "7" }, retryAfterMs: 7_000 },
  // input_tokens 472 is the uncached part; Anthropic reports cache reads beside it.
  textUsage: { inputTokens: 728, outputTokens: 15, cachedInputTokens: 256 },
  toolUsage: { inputTokens: 472, outputTokens: 89, cachedInputTokens: 0 },
  toolCallId: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
  eventsThroughFirstDelta: 4,
});

describe("anthropic: wire, vendor specifics", () => {
  const server = replayServerForSuite();

  it("sends the system prompt, the message, the tool's JSON schema and the sampling settings", async () => {
    server.reply({ events: sseEvents("anthropic/text.sse") });
    await collect(anthropic(server.baseURL));
    const request = server.requests.at(-1);
    expect(request?.method).toBe("POST");
    expect(request?.headers["x-api-key"]).toBe("sk-ant-test-key");
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(JSON.parse(request?.body ?? "")).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      max_tokens: 1024,
      temperature: 0.2,
      system: [{ type: "text", text: "You are a weather assistant." }],
      messages: [{ role: "user", content: [{ type: "text", text: "What is the weather in San Francisco?" }] }],
      tools: [
        {
          name: "get_weather",
          description: "Get the current weather in a given location",
          input_schema: WEATHER_REQUEST.tools[0]?.inputSchema,
        },
      ],
      tool_choice: { type: "auto" },
    });
  });

  it("round-trips an assistant tool call and its results in the next request", async () => {
    server.reply({ events: sseEvents("anthropic/tool-call.sse") }, { events: sseEvents("anthropic/text.sse") });
    const model = anthropic(server.baseURL);
    const { parts: first, call } = await firstToolCall(model);

    const second = await collect(model, {
      ...WEATHER_REQUEST,
      transcript: [
        ...WEATHER_REQUEST.transcript,
        {
          role: "assistant",
          text: textOf(first),
          toolCalls: [{ callId: call.toolCallId, name: call.toolName, input: JSON.parse(call.input) }],
        },
        { role: "tool", callId: call.toolCallId, name: call.toolName, status: "ok", content: "64°F and foggy" },
      ],
    });
    expect(textOf(second)).toBe("Hello, world!");

    const body = JSON.parse(server.requests.at(-1)?.body ?? "");
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is the weather in San Francisco?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check the weather." },
          {
            type: "tool_use",
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            name: "get_weather",
            input: { location: "San Francisco, CA", unit: "fahrenheit" },
          },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "64°F and foggy" }],
      },
    ]);
  });

  it("flags a failed, denied or interrupted tool result as an error with its exact text", async () => {
    server.reply({ events: sseEvents("anthropic/text.sse") });
    await collect(anthropic(server.baseURL), {
      ...WEATHER_REQUEST,
      transcript: [
        ...WEATHER_REQUEST.transcript,
        {
          role: "assistant",
          text: "",
          toolCalls: [
            { callId: "toolu_a", name: "get_weather", input: { location: "Paris" } },
            { callId: "toolu_b", name: "get_weather", input: { location: "Oslo" } },
          ],
        },
        { role: "tool", callId: "toolu_a", name: "get_weather", status: "error", content: "upstream timeout" },
        { role: "tool", callId: "toolu_b", name: "get_weather", status: "denied", content: "denied by the user" },
      ],
    });
    const body = JSON.parse(server.requests.at(-1)?.body ?? "");
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "upstream timeout", is_error: true },
        { type: "tool_result", tool_use_id: "toolu_b", content: "denied by the user", is_error: true },
      ],
    });
  });

  it("maps an in-stream overloaded error event to a retryable server_error", async () => {
    server.reply({ events: sseEvents("anthropic/overloaded.sse") });
    const parts = await collect(anthropic(server.baseURL));
    expect(textOf(parts)).toBe("Hello");
    expect(lastFailure(parts)).toMatchObject({ code: "server_error", isRetryable: true, status: 529 });
  });

  it("retries a 503 and a 429 that came before any output, as resolveModel wraps withRetry", async () => {
    server.reply(
      { status: 503, body: fixture("anthropic/error-500.json") },
      { status: 429, headers: { "retry-after": "7" }, body: fixture("anthropic/error-429.json") },
      { events: sseEvents("anthropic/text.sse") },
    );
    const waits: number[] = [];
    const model = resolveModel(
      "anthropic:claude-sonnet-4-5",
      { ...ENV, ANTHROPIC_BASE_URL: server.baseURL },
      { retry: { random: () => 0.5, sleep: async (ms) => void waits.push(ms) } },
    );
    const before = server.requests.length;
    const parts = await collect(model);
    expect(parts.filter((part) => part.type === "retry")).toMatchObject([
      { attempt: 1, delayMs: 250, failure: { code: "server_error", status: 503 } },
      { attempt: 2, delayMs: 7_000, failure: { code: "rate_limited", retryAfterMs: 7_000 } },
    ]);
    expect(waits).toEqual([250, 7_000]);
    expect(textOf(parts)).toBe("Hello, world!");
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(server.requests.length - before).toBe(3);
  });

  it("does not retry a connection dropped after text streamed: the error passes through", async () => {
    server.reply({ events: sseEvents("anthropic/text.sse"), dropAfter: 4 });
    const model = resolveModel(
      "anthropic:claude-sonnet-4-5",
      { ...ENV, ANTHROPIC_BASE_URL: server.baseURL },
      { retry: { sleep: async () => {} } },
    );
    const before = server.requests.length;
    const parts = await collect(model);
    expect(textOf(parts)).toBe("Hello");
    expect(parts.some((part) => part.type === "retry")).toBe(false);
    expect(server.requests.length - before).toBe(1);
    expect(lastFailure(parts)).toMatchObject({ code: "connection", isRetryable: true });
  });

  it("sends no request at all when the connection is refused, and says so", async () => {
    const closed = await startReplayServer();
    const url = closed.baseURL;
    await closed.close();
    const failure = lastFailure(await collect(anthropic(url)));
    expect(failure).toMatchObject({ code: "connection", isRetryable: true });
    expect(failure).not.toHaveProperty("status");
  });
});
