import { describe, expect, it } from "vitest";
import { StepWatch, WATCH_AFTER_MS } from "./step-watch.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
      if (i % 50 === 0) await sleep(WATCH_AFTER_MS);
    }
    expect(events).toEqual([]);
    // A long step is, once, and its watcher stops with it.
    await watch.run(() => sleep(WATCH_AFTER_MS * 6));
    expect(events).toEqual(["armed", "stopped"]);
    watch.dispose();
  });

  it("leaves nothing running after dispose", async () => {
    let armed = 0;
    const watch = new StepWatch(() => {
      armed++;
      return () => undefined;
    });
    const step = watch.run(() => sleep(WATCH_AFTER_MS / 5));
    watch.dispose();
    await step;
    await sleep(WATCH_AFTER_MS * 3);
    expect(armed).toBe(0);
  });
});
