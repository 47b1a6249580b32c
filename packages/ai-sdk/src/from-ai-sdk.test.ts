import {
  APICallError,
  JSONParseError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4StreamPart,
  type LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { ModelPart, ModelRequest } from "@sema-agent/core/model-kit";
import { describe, expect, it } from "vitest";
import { fromAiSdk, toUsage } from "./from-ai-sdk.ts";

const REQUEST: ModelRequest = {
  system: "sys",
  transcript: [{ role: "user", entryId: "e1", content: "hi" }],
  tools: [],
};

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const FINISH: LanguageModelV4StreamPart = {
  type: "finish",
  usage: USAGE,
  finishReason: { unified: "stop", raw: "stop" },
};

/** A V4 model whose `doStream` is the given function; records the options it was called with. */
function fakeModel(
  doStream: (options: LanguageModelV4CallOptions) => PromiseLike<{
    stream: ReadableStream<LanguageModelV4StreamPart>;
  }>,
): LanguageModelV4 & { calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: "v4",
    provider: "fake.chat",
    modelId: "fake-1",
    supportedUrls: {},
    calls,
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: (options) => {
      calls.push(options);
      return doStream(options);
    },
  };
}

function streamOf(
  parts: LanguageModelV4StreamPart[],
  then?: "error" | "hang",
): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (then === "error") controller.error(new TypeError("terminated", { cause: { code: "ECONNRESET" } }));
      else if (then !== "hang") controller.close();
    },
  });
}

function replaying(parts: LanguageModelV4StreamPart[], then?: "error" | "hang") {
  return fakeModel(async () => ({ stream: streamOf(parts, then) }));
}

async function collect(model = replaying([FINISH]), signal = new AbortController().signal): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of fromAiSdk(model).stream(REQUEST, signal)) parts.push(part);
  return parts;
}

describe("fromAiSdk", () => {
  it("defaults its id to provider:modelId, or takes the one given", () => {
    expect(fromAiSdk(replaying([])).id).toBe("fake.chat:fake-1");
    expect(fromAiSdk(replaying([]), { id: "anthropic:claude" }).id).toBe("anthropic:claude");
  });

  it("maps content parts one to one and drops what the port has no words for", async () => {
    const parts = await collect(
      replaying([
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: "r1", modelId: "fake-1" },
        { type: "reasoning-start", id: "r", providerMetadata: { fake: { sig: "x" } } },
        { type: "reasoning-delta", id: "r", delta: "think" },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hi" },
        { type: "text-end", id: "t" },
        { type: "raw", rawValue: { anything: true } },
        { type: "tool-input-start", id: "c1", toolName: "search" },
        { type: "tool-input-delta", id: "c1", delta: '{"q":' },
        { type: "tool-input-delta", id: "c1", delta: '"x"}' },
        { type: "tool-input-end", id: "c1" },
        { type: "tool-call", toolCallId: "c1", toolName: "search", input: '{"q":"x"}' },
        { type: "source", sourceType: "url", id: "s", url: "https://example.com" },
        { ...FINISH, finishReason: { unified: "tool-calls", raw: "tool_use" } },
      ]),
    );
    expect(parts).toEqual([
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "think" },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Hi" },
      { type: "text-end", id: "t" },
      { type: "tool-input-start", id: "c1", toolName: "search" },
      { type: "tool-input-delta", id: "c1", delta: '{"q":' },
      { type: "tool-input-delta", id: "c1", delta: '"x"}' },
      { type: "tool-input-end", id: "c1" },
      { type: "tool-call", toolCallId: "c1", toolName: "search", input: '{"q":"x"}' },
      { type: "finish", usage: { inputTokens: 10, outputTokens: 5 }, finishReason: "tool-calls" },
    ]);
  });

  it("skips provider-executed tool calls: the harness has nothing to run", async () => {
    const parts = await collect(
      replaying([
        { type: "tool-input-start", id: "w", toolName: "web_search", providerExecuted: true },
        { type: "tool-call", toolCallId: "w", toolName: "web_search", input: "{}", providerExecuted: true },
        FINISH,
      ]),
    );
    expect(parts.map((part) => part.type)).toEqual(["finish"]);
  });

  it.each([
    ["stop", "stop"],
    ["length", "length"],
    ["content-filter", "content-filter"],
    ["tool-calls", "tool-calls"],
    ["error", "error"],
    ["other", "other"],
  ] as const)("maps the finish reason %s", async (unified, expected) => {
    const parts = await collect(replaying([{ ...FINISH, finishReason: { unified, raw: undefined } }]));
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: expected });
  });

  it("passes call options: prompt, tools, sampling, provider options and the abort signal", async () => {
    const model = replaying([FINISH]);
    const signal = new AbortController().signal;
    const request: ModelRequest = {
      ...REQUEST,
      tools: [{ name: "search", description: "Search", inputSchema: { type: "object" } }],
      maxOutputTokens: 100,
      temperature: 0,
    };
    const adapted = fromAiSdk(model, { providerOptions: { anthropic: { sendReasoning: false } } });
    for await (const _ of adapted.stream(request, signal));
    expect(model.calls[0]).toEqual({
      prompt: [
        { role: "system", content: "sys" },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      tools: [{ type: "function", name: "search", description: "Search", inputSchema: { type: "object" } }],
      toolChoice: { type: "auto" },
      maxOutputTokens: 100,
      temperature: 0,
      providerOptions: { anthropic: { sendReasoning: false } },
      abortSignal: signal,
    });
  });

  it("leaves out tools, sampling and provider options that were not given", async () => {
    const model = replaying([FINISH]);
    await collect(model);
    expect(Object.keys(model.calls[0] ?? {}).sort()).toEqual(["abortSignal", "prompt"]);
  });
});

describe("fromAiSdk failures", () => {
  it("turns a doStream that throws an API error into a typed error part", async () => {
    const model = fakeModel(() => {
      throw new APICallError({
        message: "Too Many Requests",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { "retry-after": "3" },
      });
    });
    expect(await collect(model)).toEqual([
      {
        type: "error",
        failure: {
          code: "rate_limited",
          message: "Too Many Requests",
          isRetryable: true,
          status: 429,
          retryAfterMs: 3000,
        },
      },
    ]);
  });

  it("turns a doStream that rejects with anything into an error part", async () => {
    const model = fakeModel(() => Promise.reject("a string, not an Error"));
    expect(await collect(model)).toEqual([
      { type: "error", failure: { code: "unknown", message: "a string, not an Error", isRetryable: false } },
    ]);
  });

  it("ends at an error part and reads nothing after it", async () => {
    const parts = await collect(
      replaying([
        { type: "text-start", id: "t" },
        { type: "error", error: new JSONParseError({ text: "{", cause: new SyntaxError("bad") }) },
        { type: "text-delta", id: "t", delta: "late" },
        FINISH,
      ]),
    );
    expect(parts.map((part) => part.type)).toEqual(["text-start", "error"]);
    expect(parts.at(-1)).toMatchObject({ failure: { code: "malformed_response", isRetryable: true } });
  });

  it("turns a stream that errors mid-way into a retryable connection error", async () => {
    const parts = await collect(replaying([{ type: "text-start", id: "t" }], "error"));
    expect(parts.at(-1)).toEqual({
      type: "error",
      failure: { code: "connection", message: "terminated", isRetryable: true },
    });
  });

  it("treats a stream that ends without a finish part as a retryable malformed response", async () => {
    const parts = await collect(replaying([{ type: "text-start", id: "t" }]));
    expect(parts.at(-1)).toEqual({
      type: "error",
      failure: {
        code: "malformed_response",
        message: "the model stream ended without a finish part",
        isRetryable: true,
      },
    });
  });

  it("treats an `interrupted` finish as a retryable malformed response, not a finished turn", async () => {
    const parts = await collect(replaying([{ ...FINISH, finishReason: { unified: "interrupted", raw: undefined } }]));
    expect(parts).toEqual([
      {
        type: "error",
        failure: {
          code: "malformed_response",
          message: "the model stream ended without a completion signal",
          isRetryable: true,
        },
      },
    ]);
  });

  it("ends a stream whose provider ignores the signal as soon as the caller aborts", async () => {
    const controller = new AbortController();
    const parts: ModelPart[] = [];
    const model = replaying([{ type: "text-start", id: "t" }], "hang");
    for await (const part of fromAiSdk(model).stream(REQUEST, controller.signal)) {
      parts.push(part);
      controller.abort();
    }
    expect(parts.at(-1)).toMatchObject({ type: "error", failure: { code: "aborted", isRetryable: false } });
  });

  it("ends a doStream that never settles as soon as the caller aborts", async () => {
    const controller = new AbortController();
    // Aborted once the provider has been called, and its promise will never settle.
    const model = fakeModel(() => {
      queueMicrotask(() => controller.abort());
      return new Promise(() => {});
    });
    expect(await collect(model, controller.signal)).toEqual([
      { type: "error", failure: { code: "aborted", message: "the model call was aborted", isRetryable: false } },
    ]);
  });

  it("does not call the provider when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = replaying([FINISH]);
    expect(await collect(model, controller.signal)).toMatchObject([{ type: "error", failure: { code: "aborted" } }]);
    expect(model.calls).toHaveLength(0);
  });

  it("cancels the provider's stream when the consumer stops reading", async () => {
    let cancelled = false;
    const model = fakeModel(async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        pull(controller) {
          controller.enqueue({ type: "text-delta", id: "t", delta: "more" });
        },
        cancel() {
          cancelled = true;
        },
      }),
    }));
    for await (const part of fromAiSdk(model).stream(REQUEST, new AbortController().signal)) {
      expect(part.type).toBe("text-delta");
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe("toUsage", () => {
  it("maps totals, cache reads and reasoning, and writes no undefined key", () => {
    const usage = toUsage({
      inputTokens: { total: 900, noCache: 100, cacheRead: 800, cacheWrite: 0 },
      outputTokens: { total: 50, text: 20, reasoning: 30 },
    });
    expect(usage).toEqual({ inputTokens: 900, outputTokens: 50, cachedInputTokens: 800, reasoningTokens: 30 });
    const bare = toUsage(USAGE);
    expect(bare).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(Object.keys(bare)).toEqual(["inputTokens", "outputTokens"]);
  });

  it("adds up the parts when a provider reports no total, and counts nothing as 0", () => {
    expect(
      toUsage({
        inputTokens: { total: undefined, noCache: 7, cacheRead: 3, cacheWrite: 2 },
        outputTokens: { total: undefined, text: 4, reasoning: undefined },
      }),
    ).toEqual({ inputTokens: 12, outputTokens: 4, cachedInputTokens: 3 });
    expect(
      toUsage({
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      }),
    ).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});
