import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CommitPoller } from "./commit-poller.ts";

describe("CommitPoller", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function poller(changes: Array<boolean | Error>) {
    const wake = vi.fn();
    const changed = vi.fn(() => {
      const next = changes.shift() ?? false;
      if (next instanceof Error) throw next;
      return next;
    });
    return { poller: new CommitPoller({ pollMs: 10, changed, wake }), changed, wake };
  }

  it("polls only while held, and wakes only when another connection committed", () => {
    // The first call sets the baseline: a change seen there predates every waiter and wakes nobody.
    const { poller: p, changed, wake } = poller([true, false, true, false]);
    expect(p.polling).toBe(false);
    const release = p.hold();
    const release2 = p.hold();
    expect(p.polling).toBe(true);
    expect(changed).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10);
    expect(wake).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10);
    expect(wake).toHaveBeenCalledTimes(1);
    release();
    release();
    expect(p.polling).toBe(true);
    release2();
    expect(p.polling).toBe(false);
    vi.advanceTimersByTime(100);
    expect(changed).toHaveBeenCalledTimes(3);
  });

  it("wakes everyone and stops when the database fails underneath it", () => {
    const { poller: p, wake } = poller([false, new Error("database is not open")]);
    p.hold();
    vi.advanceTimersByTime(10);
    expect(wake).toHaveBeenCalledTimes(1);
    expect(p.polling).toBe(false);
  });
});
