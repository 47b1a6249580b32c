// The group-commit queue's lanes, without a database: a person's item goes ahead of the routine
// ones and takes its key's queued routine items with it, in order; and person items alone go in a
// batch of their own beside the routine batches in flight, told to run on the priority lane.
import type { WorkLane } from "@sema-agent/core/store-kit";
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
  const batches: Array<{ lane: WorkLane; names: string[] }> = [];
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

/** Fill every slot: four routine batches and the person lane's one, all held. */
async function fillSlots(coalescer: Coalescer<Item>): Promise<void> {
  for (const n of [1, 2, 3, 4]) {
    coalescer.add({ key: `blocker ${n}`, name: `blocker ${n}` });
    await vi.advanceTimersByTimeAsync(0);
  }
  coalescer.add({ key: "person blocker", name: "person blocker" }, "person");
}

describe("Coalescer lanes", () => {
  it("takes a person's task's routine items into the person lane ahead of it", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(3);
    await fillSlots(coalescer);
    expect(batches.map((batch) => batch.lane)).toEqual(["routine", "routine", "routine", "routine", "person"]);
    coalescer.add({ key: "a", name: "a1" });
    coalescer.add({ key: "b", name: "b1" });
    coalescer.add({ key: "c", name: "c1" });
    coalescer.add({ key: "b", name: "b2" });
    coalescer.add({ key: "d", name: "d1" });
    coalescer.add({ key: "b", name: "person b" }, "person");
    release();
    await vi.runAllTimersAsync();
    const after = batches.slice(5).map((batch) => batch.names);
    // One item per key in a batch: b1 leads the first, b2 and then the person's item follow in order.
    expect(after[0]).toEqual(["b1", "a1", "c1"]);
    expect(after[1]).toEqual(["b2", "d1"]);
    expect(after[2]).toEqual(["person b"]);
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
    expect(batches.slice(5).flatMap((batch) => batch.names)).toEqual(["person z", "a1", "b1", "c1"]);
  });

  it("sends a person's item at once while every routine batch is in flight, in a batch of its own", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(256);
    for (const n of [1, 2, 3, 4]) {
      coalescer.add({ key: `blocker ${n}`, name: `blocker ${n}` });
      await vi.advanceTimersByTimeAsync(0);
    }
    for (const n of [1, 2, 3]) coalescer.add({ key: `r${n}`, name: `r${n}` });
    coalescer.add({ key: "p", name: "person p" }, "person");
    // No tick passed, no routine batch ended: the person's batch went out on its own lane.
    expect(batches.at(-1)).toEqual({ lane: "person", names: ["person p"] });
    expect(batches.filter((batch) => batch.lane === "routine")).toHaveLength(4);
    release();
    await vi.runAllTimersAsync();
    expect(batches.slice(5)).toEqual([{ lane: "routine", names: ["r1", "r2", "r3"] }]);
  });

  it("sends reads (no key) of the person lane alone too, the routine ones after", async () => {
    vi.useFakeTimers();
    const batches: Array<{ lane: WorkLane; names: string[] }> = [];
    const coalescer = new Coalescer<Item>({ windowMs: 0, maxBatch: 256 }, undefined, async (batch, lane) => {
      batches.push({ lane, names: batch.map((item) => item.name) });
    });
    coalescer.add({ key: "", name: "r1" });
    coalescer.add({ key: "", name: "p1" }, "person");
    coalescer.add({ key: "", name: "r2" });
    await vi.runAllTimersAsync();
    expect(batches[0]).toEqual({ lane: "person", names: ["p1"] });
    expect(batches.slice(1).flatMap((batch) => batch.names)).toEqual(["r1", "r2"]);
  });
});
