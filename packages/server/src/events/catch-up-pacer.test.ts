import { describe, expect, it } from "vitest";
import { CatchUpPacer } from "./catch-up-pacer.ts";

/** A marker that runs at the start of every turn of the event loop while `running()` holds. */
function countTurns(running: () => boolean): { turn: () => number } {
  let turn = 0;
  const tick = () => {
    turn++;
    if (running()) setImmediate(tick);
  };
  setImmediate(tick);
  return { turn: () => turn };
}

describe("CatchUpPacer", () => {
  it("lets pages through until the turn's budget is spent, then waits for the next turn", async () => {
    const pacer = new CatchUpPacer(1000);
    const order: string[] = [];
    await pacer.take(600);
    order.push("a");
    await pacer.take(600);
    order.push("b");
    setImmediate(() => order.push("next turn"));
    await pacer.take(600);
    order.push("c");
    expect(order).toEqual(["a", "b", "next turn", "c"]);
  });

  it("keeps every turn within the budget plus one page, however many streams catch up at once", async () => {
    const page = 256 * 1024;
    const pacer = new CatchUpPacer(1024 * 1024);
    let done = false;
    const clock = countTurns(() => !done);
    const bytesByTurn = new Map<number, number>();
    const stream = async () => {
      for (let i = 0; i < 20; i++) {
        await pacer.take(page);
        bytesByTurn.set(clock.turn(), (bytesByTurn.get(clock.turn()) ?? 0) + page);
      }
    };
    await Promise.all(Array.from({ length: 60 }, stream));
    done = true;
    const total = [...bytesByTurn.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(60 * 20 * page);
    expect(Math.max(...bytesByTurn.values())).toBeLessThanOrEqual(1024 * 1024 + page);
    // 300 MB of pages took many turns, each short: the loop served other work in between.
    expect(bytesByTurn.size).toBeGreaterThanOrEqual((60 * 20 * page) / (1024 * 1024 + page));
  });
});
