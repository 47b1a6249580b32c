import { afterEach, describe, expect, it, vi } from "vitest";
import { TaskQueue } from "./task-queue.ts";

// The steps' durations are fake time: the order they end in is fixed, not left to the machine's load.
afterEach(() => vi.useRealTimers());

describe("TaskQueue", () => {
  it("runs one task's work one at a time, in order, other tasks alongside, and survives failures", async () => {
    vi.useFakeTimers();
    const queue = new TaskQueue();
    const log: string[] = [];
    const step =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const settled = Promise.allSettled([
      queue.run("a", step("a1", 20)),
      queue.run("a", step("a2", 5, true)),
      queue.run("b", step("b1", 5)),
      queue.run("a", step("a3", 1)),
    ]);
    await vi.runAllTimersAsync();
    const results = await settled;
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(log.indexOf("end a1")).toBeLessThan(log.indexOf("start a2"));
    expect(log.indexOf("end a2")).toBeLessThan(log.indexOf("start a3"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
  });
});
