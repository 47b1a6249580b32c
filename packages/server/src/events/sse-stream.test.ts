import { MemoryStore, type Store, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseFrames } from "../test-support/sse-frames.ts";
import { type SseStreamOptions, sseStream } from "./sse-stream.ts";
import { StreamBudget } from "./stream-budget.ts";
import { TaskTails } from "./task-tail.ts";

const decoder = new TextDecoder();

async function open(store: Store, taskId: string, options: Partial<SseStreamOptions> & { tails: TaskTails }) {
  const record = await store.getTask(taskId);
  const reader = sseStream({ store, hub: undefined, record, afterSeq: 0, heartbeatMs: 60_000, ...options }).getReader();
  let text = "";
  // The retry frame, then the stored log: the stream is level with the log, and live.
  while (!text.includes(`id: ${record.lastSeq}\n`)) text += decoder.decode((await reader.read()).value);
  return { reader, text };
}

async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
  }
}

async function appendNotes(store: Store, taskId: string, count: number, size = 300): Promise<number> {
  let seq = (await store.getTask(taskId)).lastSeq;
  for (let i = 0; i < count; i++)
    seq = (await store.append(taskId, [make.note("x".repeat(size))], { expectedSeq: seq }))[0]?.seq ?? seq;
  return seq;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("sseStream", () => {
  it("cuts the largest backlog first when the process's budget is exceeded; the others go on", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    const tails = new TaskTails(store);
    const budget = new StreamBudget(3000);
    const slow = await open(store, taskId, { tails, budget });
    const fast = await open(store, taskId, { tails, budget });
    const start = (await store.getTask(taskId)).lastSeq;
    // Ten events of ~400 bytes each: the fast one reads each, the slow one none.
    for (let i = 0; i < 10; i++) {
      const seq = await appendNotes(store, taskId, 1);
      let text = "";
      while (!text.includes(`id: ${seq}\n`)) text += decoder.decode((await fast.reader.read()).value);
      expect(budget.totalBytes).toBeLessThanOrEqual(3000);
    }
    const frames = parseFrames(await readToEnd(slow.reader));
    expect(frames.map((f) => f.event)).toEqual(["stream_overflow"]);
    expect(JSON.parse(frames[0]?.data ?? "")).toEqual({ reason: "process_budget", limitBytes: 3000, lastSeq: start });
    const seq = await appendNotes(store, taskId, 1);
    let text = "";
    while (!text.includes(`id: ${seq}\n`)) text += decoder.decode((await fast.reader.read()).value);
    expect(budget.streams).toBe(1);
    await fast.reader.cancel();
    expect(budget.streams).toBe(0);
    expect(budget.totalBytes).toBe(0);
    expect(tails.size).toBe(0);
  });

  it("holds at most its byte budget for a client that stopped reading, then says why it ended", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    const budget = new StreamBudget(Number.POSITIVE_INFINITY);
    const stalled = await open(store, taskId, { tails: new TaskTails(store), budget, maxBufferedBytes: 10_000 });
    const start = (await store.getTask(taskId)).lastSeq;
    for (let i = 0; i < 100; i++) {
      await appendNotes(store, taskId, 1, 1000);
      expect(budget.totalBytes).toBeLessThanOrEqual(10_000 + 1200);
    }
    const frames = parseFrames(await readToEnd(stalled.reader));
    expect(frames.map((f) => f.event)).toEqual(["stream_overflow"]);
    expect(JSON.parse(frames[0]?.data ?? "")).toEqual({ reason: "stream_budget", limitBytes: 10_000, lastSeq: start });
    expect(budget.totalBytes).toBe(0);
  });

  it("re-checks its credential every recheckMs and ends with token_revoked once it is no longer valid", async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    let valid = true;
    let checks = 0;
    const authorized = async () => {
      checks++;
      return valid;
    };
    const tails = new TaskTails(store);
    const stream = await open(store, taskId, { tails, authorized, recheckMs: 500 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(checks).toBe(4);
    const seq = await appendNotes(store, taskId, 1);
    let text = "";
    while (!text.includes(`id: ${seq}\n`)) text += decoder.decode((await stream.reader.read()).value);
    valid = false;
    // Queued frames of a revoked token are dropped, not delivered.
    await appendNotes(store, taskId, 3);
    await vi.advanceTimersByTimeAsync(500);
    const frames = parseFrames(await readToEnd(stream.reader));
    expect(frames.map((f) => f.event)).toEqual(["token_revoked"]);
    expect(JSON.parse(frames[0]?.data ?? "")).toEqual({ reason: "token_revoked", lastSeq: seq });
    expect(tails.size).toBe(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(checks).toBe(5);
  });

  it("ends with token_revoked when the check itself fails (fail closed)", async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    const authorized = () => Promise.reject(new Error("token store unavailable"));
    const stream = await open(store, taskId, { tails: new TaskTails(store), authorized, recheckMs: 500 });
    await vi.advanceTimersByTimeAsync(500);
    const frames = parseFrames(await readToEnd(stream.reader));
    expect(frames.map((f) => f.event)).toEqual(["token_revoked"]);
  });
});
