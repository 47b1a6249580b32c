// The group-commit queue's lanes, without a database: a person's item goes ahead of the routine
// ones and takes its key's queued routine items with it, in order.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Coalescer } from "./coalescer.ts";

interface Item {
  key: string;
  name: string;
}

afterEach(() => {
  vi.useRealTimers();
});

/** A coalescer whose batches are recorded by item name; the first batch is held until `release`. */
function recording(maxBatch: number) {
  const batches: string[][] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const coalescer = new Coalescer<Item>(
    { windowMs: 0, maxBatch },
    (item) => item.key,
    async (batch) => {
      batches.push(batch.map((item) => item.name));
      if (batches.length === 1) await held;
    },
  );
  return { coalescer, batches, release };
}

describe("Coalescer lanes", () => {
  it("takes a person's task's routine items into the person lane ahead of it", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(3);
    // Up to 4 batches run at once: 4 blockers fill them, and the rest queue behind.
    for (const n of [1, 2, 3, 4]) coalescer.add({ key: `blocker ${n}`, name: `blocker ${n}` }, "person");
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
    expect(after[0]).toEqual(["b1", "a1", "c1"]);
    expect(after[1]).toEqual(["b2", "d1"]);
    expect(after[2]).toEqual(["person b"]);
  });

  it("leaves the routine order alone when the person's key has nothing queued", async () => {
    vi.useFakeTimers();
    const { coalescer, batches, release } = recording(2);
    for (const n of [1, 2, 3, 4]) coalescer.add({ key: `blocker ${n}`, name: `blocker ${n}` }, "person");
    coalescer.add({ key: "a", name: "a1" });
    coalescer.add({ key: "b", name: "b1" });
    coalescer.add({ key: "c", name: "c1" });
    coalescer.add({ key: "z", name: "person z" }, "person");
    release();
    await vi.runAllTimersAsync();
    expect(batches.slice(4).flat()).toEqual(["person z", "a1", "b1", "c1"]);
  });
});
