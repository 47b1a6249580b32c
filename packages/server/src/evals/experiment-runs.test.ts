import { describe, expect, it } from "vitest";
import { ExperimentRuns } from "./experiment-runs.ts";

describe("ExperimentRuns", () => {
  it("runs one experiment per principal, keeps why a run stopped on an error, and forgets it on the next run", async () => {
    const logged: string[] = [];
    const runs = new ExperimentRuns(undefined, (_error, id) => logged.push(id));
    let fail: (error: Error) => void = () => undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    runs.reserve("acme").start(
      "exp-1",
      () =>
        new Promise((_, reject) => {
          fail = reject;
          started();
        }),
    );
    await running;
    expect(runs.isRunning("acme", "exp-1")).toBe(true);
    expect(() => runs.reserve("acme")).toThrow(/an experiment of this principal is running/);
    fail(new Error("the store is unavailable"));
    await runs.settled();
    expect(runs.isRunning("acme", "exp-1")).toBe(false);
    expect(logged).toEqual(["exp-1"]);
    expect(runs.failure("acme", "exp-1")).toBe("the store is unavailable");
    // Another principal's experiment of the same id is not this one.
    expect(runs.failure("bob", "exp-1")).toBeUndefined();
    // A resume clears it; a run that ends well leaves none.
    runs.reserve("acme").start("exp-1", async () => undefined);
    await runs.settled();
    expect(runs.failure("acme", "exp-1")).toBeUndefined();
  });

  it("keeps no failure for a run stopped by its signal (the node stopping)", async () => {
    const runs = new ExperimentRuns(undefined, () => undefined);
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    runs.reserve("acme").start(
      "exp-2",
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
          started();
        }),
    );
    await running;
    await runs.stopAll();
    expect(runs.isRunning("acme", "exp-2")).toBe(false);
    expect(runs.failure("acme", "exp-2")).toBeUndefined();
  });
});
