import { describe, expect, it } from "vitest";
import { SeqConflictError, StoreUnavailableError } from "../protocol/errors.ts";
import { retryStoreUnavailable } from "./store-retry.ts";

const down = () => new StoreUnavailableError("down");

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

  it("gives up with the last failure once the time budget is spent", async () => {
    let calls = 0;
    const started = Date.now();
    const error = await retryStoreUnavailable(
      async () => {
        calls++;
        throw down();
      },
      { maxMs: 120, baseMs: 10, capMs: 20 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBeGreaterThan(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("stops waiting as soon as its signal aborts (the lease was lost)", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    let calls = 0;
    const started = Date.now();
    const error = await retryStoreUnavailable(
      async () => {
        calls++;
        throw down();
      },
      { maxMs: 60_000, baseMs: 5_000, capMs: 5_000, random: () => 1, signal: controller.signal },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
