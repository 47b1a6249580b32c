import { MemoryStore, type TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ArchiveSink } from "./archive-sink.ts";
import { startRetention, takeTurn } from "./background.ts";
import type { PruneReport } from "./prune.ts";

const noArchive: ArchiveSink = {
  name: "none",
  write: async () => {
    throw new Error("no rule archives");
  },
};
const done: TaskEvent[] = [{ type: "task_cancelled", v: 1 }];

afterEach(() => {
  vi.useRealTimers();
});

describe("background retention", () => {
  it("gives the turn to one node at a time, and to another once it expires", async () => {
    const store = new MemoryStore();
    const racers = await Promise.all(["a", "b", "c", "d"].map((holder) => takeTurn(store, holder, 1000, 500)));
    expect(racers.filter(Boolean)).toHaveLength(1);
    const winner = ["a", "b", "c", "d"][racers.indexOf(true)] ?? "";
    const other = winner === "a" ? "b" : "a";
    expect(await takeTurn(store, other, 1499, 500)).toBe(false);
    expect(await takeTurn(store, winner, 1499, 500)).toBe(true);
    expect(await takeTurn(store, other, 2000, 500)).toBe(true);
  });

  it("prunes every period on one node of two sharing a store, and stops cleanly", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-12-01T00:00:00.000Z") });
    const store = new MemoryStore();
    const [created] = await store.createTask({ created: make.created("p1") });
    const id = created?.taskId ?? "";
    await store.append(id, done, { expectedSeq: 1 });
    const passes: Array<{ node: string; report: PruneReport }> = [];
    const errors: unknown[] = [];
    const nodes = ["n1", "n2"].map((holder) =>
      startRetention({
        store,
        policy: { default: { olderThan: "1h" }, every: "10m" },
        archive: noArchive,
        holder,
        onPass: (report) => passes.push({ node: holder, report }),
        onError: (error) => errors.push(error),
      }),
    );
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    // One pass, by one node; the task is 10 minutes old, not yet due.
    expect(passes).toHaveLength(1);
    expect(passes[0]?.report.removed).toEqual([]);
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(passes.flatMap((pass) => pass.report.removed.map((task) => task.taskId))).toEqual([id]);
    // One pass a period, whichever node had the turn: never two.
    expect(passes).toHaveLength(7);
    await expect(store.getTask(id)).rejects.toMatchObject({ code: "TaskNotFound" });
    for (const node of nodes) await node.stop();
    const count = passes.length;
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(passes.length).toBe(count);
    expect(errors).toEqual([]);
  });
});
