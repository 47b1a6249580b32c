import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LegPacer, type PacerScheduler } from "./leg-pacer.ts";

/** A scheduler on a hand-moved clock whose deferred callbacks run when the test says. */
function manualScheduler(): PacerScheduler & { time: number; deferred: Array<() => void>; runDeferred(): void } {
  const s = {
    time: 0,
    deferred: [] as Array<() => void>,
    now: () => s.time,
    defer: (callback: () => void) => {
      s.deferred.push(callback);
    },
    runDeferred() {
      const due = s.deferred.splice(0);
      for (const callback of due) callback();
    },
  };
  return s;
}

/** Let the continuations of released steps run (each is a microtask or two away). */
async function settle(): Promise<void> {
  for (let i = 0; i < 4; i++) await Promise.resolve();
}

describe("LegPacer", () => {
  it("lets an attended step go at once, even while other steps wait", () => {
    const s = manualScheduler();
    const pacer = new LegPacer(s, 4);
    expect(pacer.pace("routine")).toBeUndefined();
    s.time = 10;
    expect(pacer.pace("routine")?.turn).toBeInstanceOf(Promise);
    expect(pacer.pace("person")?.turn).toBeInstanceOf(Promise);
    expect(pacer.waiting).toBe(2);
    expect(pacer.pace("attended")).toBeUndefined();
    expect(pacer.waiting).toBe(2);
  });

  it("releases waiting person steps before routine ones, each lane in arrival order", async () => {
    const s = manualScheduler();
    const pacer = new LegPacer(s, 4);
    pacer.pace("routine");
    s.time = 5;
    const order: string[] = [];
    for (const [name, lane] of [
      ["r1", "routine"],
      ["p1", "person"],
      ["r2", "routine"],
      ["p2", "person"],
    ] as const)
      void pacer.pace(lane)?.turn.then(() => order.push(name));
    while (pacer.waiting > 0 || s.deferred.length > 0) {
      s.runDeferred();
      await settle();
    }
    expect(order).toEqual(["p1", "p2", "r1", "r2"]);
  });

  it("runs routine steps at once while the slice lasts, then queues them until the macrotask ends", async () => {
    const s = manualScheduler();
    const pacer = new LegPacer(s, 4);
    expect(pacer.pace("routine")).toBeUndefined();
    s.time = 3.9;
    expect(pacer.pace("routine")).toBeUndefined();
    s.time = 4;
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) => pacer.pace("routine")?.turn.then(() => order.push(n)));
    expect(waits.every((w) => w !== undefined)).toBe(true);
    // Once one waits, a later step waits behind it even if the clock went back into the slice.
    expect(order).toEqual([]);
    s.runDeferred();
    await settle();
    expect(order.length).toBeGreaterThan(0);
    while (pacer.waiting > 0) {
      s.runDeferred();
      await settle();
    }
    s.runDeferred();
    await settle();
    expect(order).toEqual([1, 2, 3]);
  });

  it("ends the slice when nothing waits: the next step after the macrotask goes at once", () => {
    const s = manualScheduler();
    const pacer = new LegPacer(s, 4);
    expect(pacer.pace("routine")).toBeUndefined();
    s.time = 100;
    s.runDeferred();
    expect(s.deferred).toEqual([]);
    expect(pacer.pace("routine")).toBeUndefined();
  });

  it("lets a promoted step go at once and releases the others in order after it", async () => {
    const s = manualScheduler();
    const pacer = new LegPacer(s, 4);
    pacer.pace("routine");
    s.time = 5;
    const order: string[] = [];
    const [a, b, c] = ["a", "b", "c"].map((name) => {
      const wait = pacer.pace("routine");
      void wait?.turn.then(() => order.push(name));
      return wait;
    });
    b?.promote();
    b?.promote();
    await settle();
    expect(order).toEqual(["b"]);
    expect(pacer.waiting).toBe(2);
    while (pacer.waiting > 0 || s.deferred.length > 0) {
      s.runDeferred();
      await settle();
    }
    expect(order).toEqual(["b", "a", "c"]);
    a?.promote();
    c?.promote();
    expect(pacer.waiting).toBe(0);
  });

  it("releases fewer steps a slice when each costs more than the slice allows", async () => {
    const s = manualScheduler();
    const pacer = new LegPacer(s, 4);
    pacer.pace("routine");
    s.time = 5;
    let running = 0;
    const waits = Array.from({ length: 200 }, () =>
      pacer.pace("routine")?.turn.then(() => {
        running++;
        s.time += 2; // each released step costs 2 ms of the slice
      }),
    );
    expect(waits.every((w) => w !== undefined)).toBe(true);
    const perSlice: number[] = [];
    while (pacer.waiting > 0) {
      const before = running;
      s.runDeferred();
      await settle();
      perSlice.push(running - before);
    }
    // At 2 ms a step and a 4 ms slice the release settles at 2 a slice.
    expect(perSlice.slice(-5)).toEqual([2, 2, 2, 2, 2]);
  });

  it("releases every routine step, in arrival order, whatever the steps cost (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            cost: fc.double({ min: 0, max: 20, noNaN: true }),
            lane: fc.constantFrom("attended" as const, "person" as const, "routine" as const),
          }),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        fc.double({ min: 0.5, max: 10, noNaN: true }),
        async (steps, sliceMs) => {
          const s = manualScheduler();
          const pacer = new LegPacer(s, sliceMs);
          const ran: number[] = [];
          const byLane = { person: [] as number[], routine: [] as number[] };
          for (const [i, step] of steps.entries()) {
            const run = () => {
              ran.push(i);
              s.time += step.cost;
            };
            const wait = pacer.pace(step.lane);
            if (step.lane === "attended") expect(wait).toBeUndefined();
            else byLane[step.lane].push(i);
            if (wait === undefined) run();
            else void wait.turn.then(run);
          }
          for (let round = 0; round < 10 * steps.length && (pacer.waiting > 0 || s.deferred.length > 0); round++) {
            s.runDeferred();
            await settle();
          }
          expect(pacer.waiting).toBe(0);
          expect([...ran].sort((a, b) => a - b)).toEqual(steps.map((_, i) => i));
          // Within a lane, first come first served.
          for (const lane of ["person", "routine"] as const)
            expect(ran.filter((i) => byLane[lane].includes(i))).toEqual(byLane[lane]);
        },
      ),
      { seed: 36_2026, numRuns: 200 },
    );
  });
});
