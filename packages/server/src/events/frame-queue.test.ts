import { describe, expect, it, vi } from "vitest";
import { CHUNK_BYTES, FrameQueue, type FrameQueueOptions } from "./frame-queue.ts";
import { StreamBudget } from "./stream-budget.ts";

const bytes = (size: number, fill = 1) => new Uint8Array(size).fill(fill);

function queue(options: Partial<FrameQueueOptions> = {}, takenSeq?: number) {
  const overflow = vi.fn<(limit: number) => void>();
  const ready = vi.fn<() => void>();
  const q = new FrameQueue({ maxBytes: 1000, overflow, ready, ...options }, takenSeq);
  return { q, overflow, ready };
}

describe("FrameQueue", () => {
  it("hands a lone frame over as it is, and says when it is empty", () => {
    const { q } = queue();
    const frame = bytes(10);
    expect(q.take()).toBeUndefined();
    q.push(frame, 3);
    expect(q.empty).toBe(false);
    expect(q.bytes).toBe(10);
    expect(q.take()).toBe(frame);
    expect(q.empty).toBe(true);
    expect(q.bytes).toBe(0);
    expect(q.takenSeq).toBe(3);
  });

  it("coalesces frames in order up to a chunk, and remembers the last stored seq taken", () => {
    const { q } = queue({ maxBytes: 10 * CHUNK_BYTES }, 7);
    expect(q.takenSeq).toBe(7);
    q.push(bytes(2, 1), 8);
    q.push(bytes(3, 2), -1);
    q.push(bytes(CHUNK_BYTES - 5, 3), 9);
    q.push(bytes(1, 4), -1);
    q.push(bytes(2 * CHUNK_BYTES, 5), 10);
    const first = q.take();
    expect(first?.byteLength).toBe(CHUNK_BYTES);
    expect([...(first ?? new Uint8Array()).subarray(0, 6)]).toEqual([1, 1, 2, 2, 2, 3]);
    expect(q.takenSeq).toBe(9);
    // A delta taken alone leaves the seq where it was; a frame larger than a chunk goes whole.
    const second = q.take();
    expect([...(second ?? new Uint8Array())]).toEqual([4]);
    expect(q.takenSeq).toBe(9);
    expect(q.take()?.byteLength).toBe(2 * CHUNK_BYTES);
    expect(q.takenSeq).toBe(10);
    expect(q.take()).toBeUndefined();
  });

  it("overflows once a bounded frame takes it past its ceiling; unbounded frames do not", () => {
    const { q, overflow } = queue({ maxBytes: 100 });
    q.push(bytes(60), 1, false);
    q.push(bytes(60), 2, false);
    expect(overflow).not.toHaveBeenCalled();
    q.drop();
    q.push(bytes(60), 3);
    q.push(bytes(40), 4);
    expect(overflow).not.toHaveBeenCalled();
    q.push(bytes(1), 5);
    expect(overflow).toHaveBeenCalledExactlyOnceWith(100);
  });

  it("holds its bytes in the process's budget until taken or dropped", () => {
    const budget = new StreamBudget(1_000_000);
    const { q } = queue({ budget, maxBytes: 1_000_000 });
    q.push(bytes(100), 1);
    q.push(bytes(50), -1);
    expect(budget.totalBytes).toBe(150);
    q.take();
    expect(budget.totalBytes).toBe(0);
    q.push(bytes(70), 2);
    q.push(bytes(30), 3);
    q.drop();
    expect(budget.totalBytes).toBe(0);
    expect(q.bytes).toBe(0);
    expect(q.take()).toBeUndefined();
    // What was dropped was never taken.
    expect(q.takenSeq).toBe(1);
  });

  it("is cut by the process's budget when its backlog is the largest", () => {
    const budget = new StreamBudget(100);
    const cut = vi.fn<() => void>();
    const { q } = queue({ budget, maxBytes: 1_000_000 });
    const stream = { queuedBytes: 0, overflow: cut };
    Object.defineProperty(stream, "queuedBytes", { get: () => q.bytes });
    budget.join(stream);
    // The cut drops the queue, as a stream's `overflow` does.
    cut.mockImplementation(() => q.drop());
    q.push(bytes(60), 1);
    expect(cut).not.toHaveBeenCalled();
    q.push(bytes(60), 2);
    expect(cut).toHaveBeenCalledOnce();
    expect(budget.totalBytes).toBe(0);
    expect(q.empty).toBe(true);
  });

  it("wakes a pending wait() on a push, and calls ready only when no one waits", async () => {
    const { q, ready } = queue();
    const woken = vi.fn();
    const waiting = q.wait().then(woken);
    q.push(bytes(1), 1);
    expect(ready).not.toHaveBeenCalled();
    await waiting;
    expect(woken).toHaveBeenCalledOnce();
    // Nobody waits now: the host is told through `ready`, once per push.
    q.push(bytes(1), 2);
    q.push(bytes(1), 3);
    expect(ready).toHaveBeenCalledTimes(2);
    // A wake without a frame (the stream's end) wakes the same way.
    const ended = q.wait();
    q.wake();
    await ended;
    expect(ready).toHaveBeenCalledTimes(2);
    q.wake();
    expect(ready).toHaveBeenCalledTimes(3);
  });
});
