import { afterEach, describe, expect, it, vi } from "vitest";
import { SeqConflictError, StoreUnavailableError } from "../../protocol/errors.ts";
import { retryStoreUnavailable } from "./store-retry.ts";

const down = () => new StoreUnavailableError("down");

afterEach(() => vi.useRealTimers());

describe("retryStoreUnavailable", () => {
  it("retries StoreUnavailable with growing, capped delays until the work succeeds", async () => {
    let calls = 0;
    const delays: number[] = [];
    const result = await retryStoreUnavailable(
      async () => {
        if (++calls < 6) throw down();
        return "ok";
      },
      { maxMs: 10_000, baseMs: 1, capMs: 8, random: () => 1, onRetry: (_e, _a, delay) => delays.push(delay) },
    );
    expect(result).toBe("ok");
    expect(delays).toEqual([1, 2, 4, 8, 8]);
  });

  it("rethrows any other error at once", async () => {
    let calls = 0;
    const conflict = new SeqConflictError("t", 1, 2);
    await expect(
      retryStoreUnavailable(
        async () => {
          calls++;
          throw conflict;
        },
        { maxMs: 10_000 },
      ),
    ).rejects.toBe(conflict);
    expect(calls).toBe(1);
  });

  it("gives up with the last failure once the time budget is spent, not before", async () => {
    vi.useFakeTimers();
    let calls = 0;
    let settled = false;
    // With random() = 1 the waits are 10, 20, 20, 20, 20, 20 and the last 10 left: the budget
    // is spent exactly 120 ms after the first failure.
    const outcome = retryStoreUnavailable(
      async () => {
        calls++;
        throw down();
      },
      { maxMs: 120, baseMs: 10, capMs: 20, random: () => 1 },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(119);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(await outcome).toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBe(8);
  });

  it("measures the time budget by its clock (the harness's), not the timers'", async () => {
    vi.useFakeTimers();
    let now = 1_000_000;
    let calls = 0;
    let settled = false;
    // Each attempt takes 100 ms by the clock: the 250 ms are spent at the fourth failure.
    const outcome = retryStoreUnavailable(
      async () => {
        calls++;
        now += 100;
        throw down();
      },
      { maxMs: 250, baseMs: 1, capMs: 1, random: () => 1, now: () => now },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(3);
    expect(settled).toBe(true);
    expect(await outcome).toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBe(4);
  });

  it("stops waiting as soon as its signal aborts (the lease was lost)", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let calls = 0;
    let settled = false;
    const outcome = retryStoreUnavailable(
      async () => {
        calls++;
        throw down();
      },
      { maxMs: 60_000, baseMs: 5_000, capMs: 5_000, random: () => 1, signal: controller.signal },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(30);
    expect(settled).toBe(false);
    // No clock moves after the abort: the 5 s wait ends because of it, not because it ran out.
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    expect(await outcome).toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
