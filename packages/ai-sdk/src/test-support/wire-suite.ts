/**
 * The wire-level cases every vendor adapter must pass, run against a real AI SDK provider talking
 * to a {@link ReplayServer}. Each vendor's test file adds its own request-bytes assertions.
 */
import type { Model, Usage } from "@sema-agent/core";
import type { ModelPart, ModelRequest } from "@sema-agent/core/model-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, type ReplayServer, sseEvents, startReplayServer } from "./replay-server.ts";

/** How one vendor speaks, for {@link describeWireSuite}. */
export interface WireVendor {
  /** The suite's name. */
  name: string;
  /** The fixture folder under `packages/ai-sdk/fixtures/`. */
  fixtures: string;
  /** The path the provider posts to (`/v1/messages`). */
  path: string;
  /** The model under test, pointed at the replay server. */
  model(baseURL: string): Model;
  /** Headers of the recorded 429, and the wait they ask for. */
  rateLimit: { headers: Record<string, string>; retryAfterMs: number };
  textUsage: Usage;
  toolUsage: Usage;
  toolCallId: string;
  /** How many events of `text.sse` stream before the first text delta has surely gone out. */
  eventsThroughFirstDelta: number;
}

export const WEATHER_REQUEST: ModelRequest = {
  system: "You are a weather assistant.",
  transcript: [{ role: "user", entryId: "e1", content: "What is the weather in San Francisco?" }],
  tools: [
    {
      name: "get_weather",
      description: "Get the current weather in a given location",
      inputSchema: {
        type: "object",
        properties: {
          location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
          unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        },
        required: ["location"],
        additionalProperties: false,
      },
    },
  ],
  maxOutputTokens: 1024,
  temperature: 0.2,
};

/** Every part of one call. Fails the test if the stream throws: adapters never throw. */
export async function collect(model: Model, request = WEATHER_REQUEST, signal?: AbortSignal): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of model.stream(request, signal ?? new AbortController().signal)) parts.push(part);
  return parts;
}

export function textOf(parts: readonly ModelPart[]): string {
  return parts.map((part) => (part.type === "text-delta" ? part.delta : "")).join("");
}

/** Asserts the stream ended with exactly one error part, last, and returns its failure. */
export function lastFailure(parts: readonly ModelPart[]) {
  const errors = parts.filter((part) => part.type === "error");
  expect(errors).toHaveLength(1);
  const last = parts.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error part last, got ${JSON.stringify(last)}`);
  return last.failure;
}

/** A replay server started before the enclosing suite's tests and closed after them. */
export function replayServerForSuite(): ReplayServer {
  let server: ReplayServer | undefined;
  const started = (): ReplayServer => {
    if (server === undefined) throw new Error("the replay server starts in beforeAll");
    return server;
  };
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get baseURL() {
      return started().baseURL;
    },
    get requests() {
      return started().requests;
    },
    reply: (...replies) => started().reply(...replies),
    close: () => started().close(),
  };
}

/** Run `model` on the weather request: its parts and the tool call it made (or the test fails). */
export async function firstToolCall(model: Model) {
  const parts = await collect(model);
  const call = parts.find((part) => part.type === "tool-call");
  if (call?.type !== "tool-call") throw new Error(`no tool call in ${JSON.stringify(parts)}`);
  return { parts, call };
}

export function describeWireSuite(vendor: WireVendor): void {
  describe(`${vendor.name}: wire`, () => {
    let server: ReplayServer;
    let model: Model;
    const dir = vendor.fixtures;

    beforeAll(async () => {
      server = await startReplayServer();
      model = vendor.model(server.baseURL);
    });
    afterAll(async () => {
      await server.close();
    });

    it("streams plain text, finishes with stop and maps usage", async () => {
      server.reply({ events: sseEvents(`${dir}/text.sse`) });
      const parts = await collect(model);
      expect(parts.filter((part) => part.type === "error")).toEqual([]);
      expect(textOf(parts)).toBe("Hello, world!");
      const types = parts.map((part) => part.type);
      expect(types[0]).toBe("text-start");
      expect(types.slice(-2)).toEqual(["text-end", "finish"]);
      expect(parts.at(-1)).toEqual({ type: "finish", finishReason: "stop", usage: vendor.textUsage });
      expect(server.requests.at(-1)?.path).toBe(vendor.path);
    });

    it("assembles a tool call whose arguments streamed in several chunks", async () => {
      server.reply({ events: sseEvents(`${dir}/tool-call.sse`) });
      const parts = await collect(model);
      const start = parts.find((part) => part.type === "tool-input-start");
      expect(start).toMatchObject({ toolName: "get_weather" });
      const deltas = parts.filter((part) => part.type === "tool-input-delta" && part.id === start?.id);
      expect(deltas.length).toBeGreaterThanOrEqual(4);
      const streamed = deltas.map((part) => (part.type === "tool-input-delta" ? part.delta : "")).join("");
      const call = parts.find((part) => part.type === "tool-call");
      expect(call).toMatchObject({ type: "tool-call", toolCallId: vendor.toolCallId, toolName: "get_weather" });
      const input = call?.type === "tool-call" ? call.input : "";
      expect(JSON.parse(input)).toEqual({ location: "San Francisco, CA", unit: "fahrenheit" });
      expect(JSON.parse(streamed)).toEqual(JSON.parse(input));
      expect(parts.indexOf(call as ModelPart)).toBeGreaterThan(
        parts.findIndex((part) => part.type === "tool-input-end"),
      );
      expect(parts.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls", usage: vendor.toolUsage });
    });

    it("maps a 429 with retry-after to a retryable rate_limited error", async () => {
      server.reply({ status: 429, headers: vendor.rateLimit.headers, body: fixture(`${dir}/error-429.json`) });
      const failure = lastFailure(await collect(model));
      expect(failure).toMatchObject({
        code: "rate_limited",
        isRetryable: true,
        status: 429,
        retryAfterMs: vendor.rateLimit.retryAfterMs,
      });
      expect(failure.message).not.toBe("");
    });

    it("maps a 500 to a retryable server_error", async () => {
      server.reply({ status: 500, body: fixture(`${dir}/error-500.json`) });
      const failure = lastFailure(await collect(model));
      expect(failure).toMatchObject({ code: "server_error", isRetryable: true, status: 500 });
      expect(failure).not.toHaveProperty("retryAfterMs");
    });

    it("maps a 401 to auth, not retryable", async () => {
      server.reply({ status: 401, body: fixture(`${dir}/error-401.json`) });
      const failure = lastFailure(await collect(model));
      expect(failure).toMatchObject({ code: "auth", isRetryable: false, status: 401 });
    });

    it("turns a malformed chunk into an error part, not a crash", async () => {
      server.reply({ events: sseEvents(`${dir}/malformed.sse`) });
      const parts = await collect(model);
      const failure = lastFailure(parts);
      expect(failure).toMatchObject({ code: "malformed_response", isRetryable: true });
      expect(parts.some((part) => part.type === "finish")).toBe(false);
    });

    it("reports a connection dropped mid-stream as a retryable connection error", async () => {
      server.reply({ events: sseEvents(`${dir}/text.sse`), dropAfter: vendor.eventsThroughFirstDelta });
      const parts = await collect(model);
      const failure = lastFailure(parts);
      expect(failure).toMatchObject({ code: "connection", isRetryable: true });
      expect(parts.some((part) => part.type === "finish")).toBe(false);
    });

    it("reports a stream that ended cleanly but early as a retryable malformed_response", async () => {
      server.reply({ events: sseEvents(`${dir}/text.sse`), endAfter: vendor.eventsThroughFirstDelta });
      const parts = await collect(model);
      expect(textOf(parts)).toBe("Hello");
      expect(lastFailure(parts)).toMatchObject({ code: "malformed_response", isRetryable: true });
    });

    it("ends with an aborted error when the signal aborts mid-stream", async () => {
      server.reply({ events: sseEvents(`${dir}/text.sse`), hangAfter: vendor.eventsThroughFirstDelta });
      const controller = new AbortController();
      const parts: ModelPart[] = [];
      for await (const part of model.stream(WEATHER_REQUEST, controller.signal)) {
        parts.push(part);
        // The first delta may be empty (OpenAI opens with `content: ""`): wait for real text.
        if (part.type === "text-delta" && part.delta !== "") controller.abort();
      }
      expect(textOf(parts)).toBe("Hello");
      expect(lastFailure(parts)).toEqual({
        code: "aborted",
        message: "the model call was aborted",
        isRetryable: false,
      });
    });

    it("ends with an aborted error when the signal was aborted before the call", async () => {
      const controller = new AbortController();
      controller.abort();
      const before = server.requests.length;
      const parts = await collect(model, WEATHER_REQUEST, controller.signal);
      expect(lastFailure(parts)).toMatchObject({ code: "aborted" });
      expect(server.requests.length).toBe(before);
    });
  });
}
