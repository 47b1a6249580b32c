/**
 * The lease's expiry, by this host's reckoning, is read off the harness's clock; the renewals
 * themselves run on timers, faked here.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { isSemaError, StoreUnavailableError } from "../../protocol/errors.ts";
import { startTask } from "../tasks/start-task.ts";
import { keepLease } from "./keep-lease.ts";

const TTL = 300;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A store whose renewals `renew` answers, and a task with a lease on it. */
async function leased(renew: () => Promise<void>) {
  const store = new MemoryStore();
  const taskId = await startTask(store, { objective: "x" });
  const lease = await store.acquireLease(taskId, { holder: { id: "me" }, ttlMs: 60_000 });
  vi.spyOn(store, "renewLease").mockImplementation(async () => {
    await renew();
    return lease;
  });
  return { store, taskId, token: lease.token };
}

describe("keepLease", () => {
  it("counts a renewed lease from the clock's reading when it asked", async () => {
    let now = 1_000_000;
    // The renewal takes 250 ms by the clock: 50 ms of the new TTL are left once it answers.
    const { store, taskId, token } = await leased(async () => {
      now += 250;
    });
    const lost: unknown[] = [];
    const stop = keepLease(
      store,
      taskId,
      token,
      TTL,
      () => now,
      (error) => lost.push(error),
    );
    now += 100;
    await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(49);
    expect(lost).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(lost).toHaveLength(1);
    expect(isSemaError(lost[0], "LeaseLost")).toBe(true);
    stop();
  });

  it("gives up on a store outage once the clock says the lease would have expired", async () => {
    let now = 1_000_000;
    const { store, taskId, token } = await leased(async () => {
      throw new StoreUnavailableError("down");
    });
    const lost: unknown[] = [];
    const stop = keepLease(
      store,
      taskId,
      token,
      TTL,
      () => now,
      (error) => lost.push(error),
    );
    // First renewal: refused, but the lease is live until 1_000_300 by the clock.
    now += 299;
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).toEqual([]);
    // Second: the clock is past it, though only 200 ms of timers have run.
    now += 1;
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).toHaveLength(1);
    expect(isSemaError(lost[0], "StoreUnavailable")).toBe(true);
    stop();
  });
});
