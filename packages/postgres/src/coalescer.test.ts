// The group-commit queue's lanes, without a database: an attended item goes ahead of a person's,
// which goes ahead of the routine ones, each taking its key's queued items of lower lanes with it,
// in order; attended items alone go in a batch of their own beside the batches in flight, told to
// run on the priority lane.
import type { WriteLane } from "@sema-agent/core/store-kit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Coalescer } from "./coalescer.ts";

interface Item {
  key: string;
  name: string;
}

afterEach(() => {
  vi.useRealTimers();
});

/** A coalescer whose batches are recorded (lane and item names); every batch is held until `release`. */
function recording(maxBatch: number) {
  const batches: Array<{ lane: WriteLane; names: string[] }> = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const coalescer = new Coalescer<Item>(
    { windowMs: 0, maxBatch },
    (item) => item.key,
    async (batch, lane) => {
      batches.push({ lane, names: batch.map((item) => item.name) });
      await held;
    },
  );
  return { coalescer, batches, release };
}

/** Fill the four slots of routine batches, all held. */
async function fillSlots(coalescer: Coalescer<Item>): Promise<void> {
  for (const n of [1, 2, 3, 4]) {
    coalescer.add({ key: `blocker ${n}`, name: `blocker ${n}` });
    await vi.advanceTimersByTimeAsync(0);
  }
}

describe("Coalescer lanes", () => {
  it("takes a person's task's routine items into the person lane ahead of it", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(3);
    await fillSlots(coalescer);
    coalescer.add({ key: "a", name: "a1" });
    coalescer.add({ key: "b", name: "b1" });
    coalescer.add({ key: "c", name: "c1" });
    coalescer.add({ key: "b", name: "b2" });
    coalescer.add({ key: "d", name: "d1" });
    coalescer.add({ key: "b", name: "person b" }, "person");
    release();
    await vi.runAllTimersAsync();
    const after = batches.slice(4);
    // One item per key in a batch: b1 leads the first, b2 and then the person's item follow in order.
    expect(after.map((batch) => batch.names)).toEqual([["b1", "a1", "c1"], ["b2", "d1"], ["person b"]]);
    // A new task's step goes ahead, but in the routine batches (on the main pool).
    expect(after.every((batch) => batch.lane === "routine")).toBe(true);
  });

  it("leaves the routine order alone when the person's key has nothing queued", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(2);
    await fillSlots(coalescer);
    coalescer.add({ key: "a", name: "a1" });
    coalescer.add({ key: "b", name: "b1" });
    coalescer.add({ key: "c", name: "c1" });
    coalescer.add({ key: "z", name: "person z" }, "person");
    release();
    await vi.runAllTimersAsync();
    expect(batches.slice(4).flatMap((batch) => batch.names)).toEqual(["person z", "a1", "b1", "c1"]);
  });

  it("sends an attended item at once while every routine batch is in flight, in a batch of its own", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(256);
    await fillSlots(coalescer);
    for (const n of [1, 2, 3]) coalescer.add({ key: `r${n}`, name: `r${n}` });
    coalescer.add({ key: "p", name: "person p" }, "person");
    coalescer.add({ key: "s", name: "steer s" }, "attended");
    // No tick passed, no routine batch ended: the attended batch went out on its own lane.
    expect(batches.at(-1)).toEqual({ lane: "attended", names: ["steer s"] });
    expect(batches).toHaveLength(5);
    release();
    await vi.runAllTimersAsync();
    expect(batches.slice(5)).toEqual([{ lane: "routine", names: ["person p", "r1", "r2", "r3"] }]);
  });

  it("takes its task's person and routine items into the attended lane, in order", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(1);
    await fillSlots(coalescer);
    // Hold the attended lane's slot too.
    coalescer.add({ key: "x", name: "attended x" }, "attended");
    coalescer.add({ key: "a", name: "a1" });
    coalescer.add({ key: "t", name: "t routine" });
    coalescer.add({ key: "t", name: "t person" }, "person");
    coalescer.add({ key: "b", name: "person b" }, "person");
    coalescer.add({ key: "t", name: "t attended" }, "attended");
    release();
    await vi.runAllTimersAsync();
    const order = batches.slice(5).flatMap((batch) => batch.names);
    expect(order.slice(0, 3)).toEqual(["t routine", "t person", "t attended"]);
    expect(order.slice(3)).toEqual(["person b", "a1"]);
  });

  it("sends reads (no key) of the attended lane alone, a person's ahead of the routine ones", async () => {
    vi.useFakeTimers();
    const batches: Array<{ lane: WriteLane; names: string[] }> = [];
    const coalescer = new Coalescer<Item>({ windowMs: 0, maxBatch: 256 }, undefined, async (batch, lane) => {
      batches.push({ lane, names: batch.map((item) => item.name) });
    });
    coalescer.add({ key: "", name: "r1" });
    coalescer.add({ key: "", name: "p1" }, "person");
    coalescer.add({ key: "", name: "a1" }, "attended");
    coalescer.add({ key: "", name: "r2" });
    await vi.runAllTimersAsync();
    expect(batches[0]).toEqual({ lane: "routine", names: ["p1", "r1"] });
    expect(batches[1]).toEqual({ lane: "attended", names: ["a1"] });
    expect(batches.slice(2).flatMap((batch) => batch.names)).toEqual(["r2"]);
  });
});
