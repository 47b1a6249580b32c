import { describe, expect, it } from "vitest";
import type { Model, ModelFailure, ModelFailureCode, ModelPart, ModelRequest } from "../../ports/model.ts";
import { retryDelayMs, withRetry } from "./retry.ts";

const REQUEST: ModelRequest = { system: "", transcript: [], tools: [] };

const FINISH: ModelPart = {
  type: "finish",
  usage: { inputTokens: 1, outputTokens: 1 },
  finishReason: "stop",
};

function failure(code: ModelFailureCode, isRetryable: boolean, extra: Partial<ModelFailure> = {}): ModelFailure {
  return { code, message: code, isRetryable, ...extra };
}

function error(f: ModelFailure): ModelPart {
  return { type: "error", failure: f };
}

/** A model that plays one scripted part list per call and counts its calls. */
function scripted(...attempts: ModelPart[][]): Model & { calls: number } {
  const model = {
    id: "fake:model",
    calls: 0,
    async *stream(): AsyncGenerator<ModelPart> {
      const parts = attempts[model.calls] ?? [];
      model.calls++;
      for (const part of parts) yield part;
    },
  };
  return model;
}

/** Records the waits; never really waits. `onSleep` runs inside the sleep (to abort, say). */
function fakeSleep(onSleep?: (ms: number) => void): {
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  waits: number[];
} {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
      onSleep?.(ms);
    },
  };
}

async function collect(model: Model, signal = new AbortController().signal): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of model.stream(REQUEST, signal)) parts.push(part);
  return parts;
}

describe("withRetry", () => {
  it("passes a successful stream through untouched, with the inner id", async () => {
    const parts: ModelPart[] = [
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "hi" },
      { type: "text-end", id: "t" },
      FINISH,
    ];
    const inner = scripted(parts);
    const model = withRetry(inner, { sleep: fakeSleep().sleep });
    expect(model.id).toBe("fake:model");
    expect(await collect(model)).toEqual(parts);
    expect(inner.calls).toBe(1);
  });

  it("retries a retryable error before any content, announcing each retry", async () => {
    const busy = failure("server_error", true, { status: 503 });
    const inner = scripted([error(busy)], [error(busy)], [{ type: "text-delta", id: "t", delta: "ok" }, FINISH]);
    const { sleep, waits } = fakeSleep();
    const parts = await collect(withRetry(inner, { sleep, random: () => 0.5 }));
    expect(parts).toEqual([
      { type: "retry", attempt: 1, delayMs: 250, failure: busy },
      { type: "retry", attempt: 2, delayMs: 500, failure: busy },
      { type: "text-delta", id: "t", delta: "ok" },
      FINISH,
    ]);
    expect(waits).toEqual([250, 500]);
    expect(inner.calls).toBe(3);
  });

  it("counts non-content parts (a retry of a nested wrapper) as no content", async () => {
    const reset = failure("connection", true);
    const inner = scripted([{ type: "retry", attempt: 1, delayMs: 0, failure: reset }, error(reset)], [FINISH]);
    const parts = await collect(withRetry(inner, { sleep: fakeSleep().sleep, random: () => 0 }));
    expect(parts.map((part) => part.type)).toEqual(["retry", "retry", "finish"]);
    expect(inner.calls).toBe(2);
  });

  it("gives up after maxRetries and yields the last error", async () => {
    const limited = (n: number) => failure("rate_limited", true, { status: 429, message: `429 #${n}` });
    const inner = scripted([error(limited(1))], [error(limited(2))], [error(limited(3))], [FINISH]);
    const { sleep, waits } = fakeSleep();
    const parts = await collect(withRetry(inner, { maxRetries: 2, sleep, random: () => 0 }));
    expect(parts).toEqual([
      { type: "retry", attempt: 1, delayMs: 0, failure: limited(1) },
      { type: "retry", attempt: 2, delayMs: 0, failure: limited(2) },
      error(limited(3)),
    ]);
    expect(waits).toHaveLength(2);
    expect(inner.calls).toBe(3);
  });

  it("makes at most five calls by default", async () => {
    const busy = failure("server_error", true);
    const inner = scripted(...Array.from({ length: 10 }, () => [error(busy)]));
    const parts = await collect(withRetry(inner, { sleep: fakeSleep().sleep }));
    expect(inner.calls).toBe(5);
    expect(parts.filter((part) => part.type === "retry")).toHaveLength(4);
    expect(parts.at(-1)).toEqual(error(busy));
  });

  it("never retries with maxRetries 0", async () => {
    const busy = failure("server_error", true);
    const inner = scripted([error(busy)], [FINISH]);
    expect(await collect(withRetry(inner, { maxRetries: 0, sleep: fakeSleep().sleep }))).toEqual([error(busy)]);
    expect(inner.calls).toBe(1);
  });

  it("passes a non-retryable error through at once", async () => {
    const denied = failure("auth", false, { status: 401 });
    const inner = scripted([error(denied)], [FINISH]);
    const { sleep, waits } = fakeSleep();
    expect(await collect(withRetry(inner, { sleep }))).toEqual([error(denied)]);
    expect(waits).toEqual([]);
    expect(inner.calls).toBe(1);
  });

  it.each<ModelPart>([
    { type: "text-delta", id: "t", delta: "Hel" },
    { type: "reasoning-start", id: "r" },
    { type: "tool-input-start", id: "c", toolName: "search" },
    { type: "tool-call", toolCallId: "c", toolName: "search", input: "{}" },
  ])("passes the error through once content streamed: %j", async (content) => {
    const dropped = failure("connection", true);
    const inner = scripted([content, error(dropped)], [FINISH]);
    const { sleep, waits } = fakeSleep();
    expect(await collect(withRetry(inner, { sleep }))).toEqual([content, error(dropped)]);
    expect(waits).toEqual([]);
    expect(inner.calls).toBe(1);
  });

  it("judges content per attempt: a clean retry may still be retried again", async () => {
    const busy = failure("server_error", true);
    const inner = scripted([error(busy)], [error(busy)], [FINISH]);
    const parts = await collect(withRetry(inner, { sleep: fakeSleep().sleep, random: () => 0 }));
    expect(parts.map((part) => part.type)).toEqual(["retry", "retry", "finish"]);
  });

  it("ends with an aborted error when the signal aborts during the wait", async () => {
    const controller = new AbortController();
    const busy = failure("server_error", true);
    const inner = scripted([error(busy)], [FINISH]);
    const { sleep } = fakeSleep(() => controller.abort());
    const parts = await collect(withRetry(inner, { sleep, random: () => 0 }), controller.signal);
    expect(parts).toEqual([
      { type: "retry", attempt: 1, delayMs: 0, failure: busy },
      error({ code: "aborted", message: "the model call was aborted", isRetryable: false }),
    ]);
    expect(inner.calls).toBe(1);
  });

  it("treats a sleep that rejects on abort like one that resolves", async () => {
    const controller = new AbortController();
    const inner = scripted([error(failure("server_error", true))], [FINISH]);
    const sleep = async () => {
      controller.abort();
      throw new Error("aborted");
    };
    const parts = await collect(withRetry(inner, { sleep }), controller.signal);
    expect(parts.at(-1)).toMatchObject({ type: "error", failure: { code: "aborted" } });
  });

  it("does not wait when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const inner = scripted([error(failure("connection", true))], [FINISH]);
    const { sleep, waits } = fakeSleep();
    const parts = await collect(withRetry(inner, { sleep }), controller.signal);
    expect(parts).toEqual([error({ code: "aborted", message: "the model call was aborted", isRetryable: false })]);
    expect(waits).toEqual([]);
  });

  it("aborts the real default sleep promptly", async () => {
    const controller = new AbortController();
    const inner = scripted([error(failure("server_error", true, { retryAfterMs: 60_000 }))], [FINISH]);
    const model = withRetry(inner, { maxDelayMs: 60_000 });
    const parts: ModelPart[] = [];
    for await (const part of model.stream(REQUEST, controller.signal)) {
      parts.push(part);
      // Abort as soon as the wrapper announces a minute-long wait: the stream must end at once.
      if (part.type === "retry") controller.abort();
    }
    expect(parts.map((part) => part.type)).toEqual(["retry", "error"]);
    expect(parts.at(-1)).toMatchObject({ failure: { code: "aborted" } });
  });

  it("turns an inner model that throws into an error part", async () => {
    const inner: Model = {
      id: "broken",
      // biome-ignore lint/correctness/useYield: a model that throws before yielding is the point
      async *stream() {
        throw new Error("boom");
      },
    };
    const parts = await collect(withRetry(inner, { sleep: fakeSleep().sleep }));
    expect(parts).toEqual([error({ code: "unknown", message: "model broken threw: boom", isRetryable: false })]);
  });

  it("stops reading the inner stream after an error part", async () => {
    const busy = failure("server_error", false);
    const inner = scripted([error(busy), FINISH]);
    expect(await collect(withRetry(inner, { sleep: fakeSleep().sleep }))).toEqual([error(busy)]);
  });
});

describe("retryDelayMs", () => {
  const policy = { baseDelayMs: 500, maxDelayMs: 30_000 };
  const plain = failure("server_error", true);

  it("is full jitter over a doubling ceiling", () => {
    const top = { ...policy, random: () => 0.999_999 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, plain, top))).toEqual([499, 999, 1999, 3999, 7999]);
    expect(retryDelayMs(3, plain, { ...policy, random: () => 0.25 })).toBe(500);
    expect(retryDelayMs(3, plain, { ...policy, random: () => 0 })).toBe(0);
  });

  it("caps the ceiling at maxDelayMs", () => {
    expect(retryDelayMs(20, plain, { ...policy, random: () => 0.5 })).toBe(15_000);
    expect(retryDelayMs(1_000, plain, { ...policy, random: () => 1 })).toBe(30_000);
  });

  it("waits at least retryAfterMs, capped at maxDelayMs", () => {
    const asked = (ms: number) => failure("rate_limited", true, { retryAfterMs: ms });
    expect(retryDelayMs(1, asked(7_000), { ...policy, random: () => 0.5 })).toBe(7_000);
    // A longer jittered backoff is kept.
    expect(retryDelayMs(8, asked(100), { ...policy, random: () => 0.5 })).toBe(15_000);
    expect(retryDelayMs(1, asked(120_000), { ...policy, random: () => 0 })).toBe(30_000);
  });

  it("clamps a random source that strays outside [0, 1]", () => {
    expect(retryDelayMs(1, plain, { ...policy, random: () => -3 })).toBe(0);
    expect(retryDelayMs(1, plain, { ...policy, random: () => 7 })).toBe(500);
  });
});
