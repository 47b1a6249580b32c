import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StepWatch, WATCH_AFTER_MS } from "./step-watch.ts";

// The watch reads performance.now() and sets timeouts: fake timers drive both, so "runs long
// enough" is a clock the test moves, not a race against the machine's load.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A step that ends when the test says so. */
function manualStep() {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    end = resolve;
  });
  return { work: () => done, end };
}

describe("StepWatch", () => {
  it("arms the watcher only for a step that runs WATCH_AFTER_MS, and stops it when the step ends", async () => {
    const events: string[] = [];
    const watch = new StepWatch(() => {
      events.push("armed");
      return () => events.push("stopped");
    });
    // Many instant steps, spread over more than the delay: none is watched.
    for (let i = 0; i < 200; i++) {
      await watch.run(async () => undefined);
      if (i % 50 === 0) await vi.advanceTimersByTimeAsync(WATCH_AFTER_MS);
    }
    expect(events).toEqual([]);
    // A step that has run just under the delay is not watched yet; at the delay it is, once,
    // and its watcher stops with it.
    const step = manualStep();
    const running = watch.run(step.work);
    await vi.advanceTimersByTimeAsync(WATCH_AFTER_MS - 1);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(events).toEqual(["armed"]);
    await vi.advanceTimersByTimeAsync(WATCH_AFTER_MS * 5);
    expect(events).toEqual(["armed"]);
    step.end();
    await running;
    expect(events).toEqual(["armed", "stopped"]);
    watch.dispose();
  });

  it("leaves nothing running after dispose", async () => {
    let armed = 0;
    const watch = new StepWatch(() => {
      armed++;
      return () => undefined;
    });
    const step = manualStep();
    const running = watch.run(step.work);
    watch.dispose();
    expect(vi.getTimerCount()).toBe(0);
    // Even a step still running long after the dispose is never watched.
    await vi.advanceTimersByTimeAsync(WATCH_AFTER_MS * 3);
    expect(armed).toBe(0);
    step.end();
    await running;
  });
});
