/**
 * The rate limiter's forgetting of idle principals costs each request O(1) amortised (issue 29,
 * from reading the code): it walked its whole map on every request once more than 10,000
 * principals held partial buckets. Work is counted as map entries visited, never as time; the
 * clock is injected.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "../http-error.ts";
import { RateLimiter } from "./rate-limit.ts";

/** Count the entries every Map iteration visits while `run` runs. */
function visits(run: () => void): number {
  let count = 0;
  const original = Map.prototype[Symbol.iterator];
  const spy = vi.spyOn(Map.prototype, Symbol.iterator).mockImplementation(function (this: Map<unknown, unknown>) {
    const inner = original.call(this);
    return {
      next() {
        count++;
        return inner.next();
      },
      [Symbol.iterator]() {
        return this;
      },
    } as MapIterator<[unknown, unknown]>;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return count;
}

afterEach(() => vi.restoreAllMocks());

describe("RateLimiter", () => {
  it("visits a bounded number of buckets per request with 20,000 principals holding partial buckets", () => {
    let clock = 0;
    // 60 a minute: one token a second; a burst of 10 is full again 10 s after its last use.
    const limiter = new RateLimiter({ perMinute: 60, burst: 10 }, () => clock);
    for (let i = 0; i < 20_000; i++) limiter.take(`p${i}`);
    expect(limiter.size).toBe(20_000);
    const perRequest: number[] = [];
    for (let i = 0; i < 100; i++) perRequest.push(visits(() => limiter.take(`q${i}`)));
    expect(Math.max(...perRequest)).toBeLessThanOrEqual(2);
    // Once they are all full again, they go, in one pass of work proportional to what goes.
    clock += 10_000;
    const forgetting = visits(() => limiter.take("late"));
    expect(forgetting).toBeLessThanOrEqual(20_100 + 2);
    expect(limiter.size).toBe(1);
    expect(visits(() => limiter.take("later"))).toBeLessThanOrEqual(2);
  });

  it("keeps its behaviour: a burst, then 429 with Retry-After, then a refill", () => {
    let clock = 0;
    const limiter = new RateLimiter({ perMinute: 60, burst: 2 }, () => clock);
    limiter.take("acme");
    limiter.take("acme");
    let refused: unknown;
    try {
      limiter.take("acme");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(429);
    expect((refused as HttpError).body().error.details).toEqual({ retryAfterSeconds: 1 });
    // Another principal is not held back.
    limiter.take("globex");
    clock += 1000;
    limiter.take("acme");
    expect(() => limiter.take("acme")).toThrow(HttpError);
    // A bucket idle past its refill is forgotten, and comes back full.
    clock += 2000;
    limiter.take("globex");
    expect(limiter.size).toBe(1);
    limiter.take("acme");
    limiter.take("acme");
  });
});
