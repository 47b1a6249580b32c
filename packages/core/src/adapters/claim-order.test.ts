// People first in the claims, with a bound (`claimOrderKey`): a task a person waits for passes the
// routine tasks that became runnable less than PERSON_HEAD_START_MS before it, never older ones,
// so a stream of people's tasks cannot starve routine work. The stores' clock is injected.
import { describe, expect, it } from "vitest";
import { PERSON_HEAD_START_MS } from "../core/work-lane.ts";
import type { Store } from "../ports/store.ts";
import { make } from "../testing/event-factories.ts";
import { MemoryStore } from "./memory-store.ts";

/** A task that is routine work: parked by a shutdown, runnable again. */
async function routineTask(store: Store): Promise<string> {
  const [created] = await store.createTask({ created: make.created() });
  const id = created?.taskId ?? "";
  const lease = await store.acquireLease(id, { holder: { id: "w0" }, ttlMs: 1_000_000 });
  await store.append(id, [make.legStarted("l1"), make.legEnded("l1", "parked:shutdown")], {
    expectedSeq: 1,
    leaseToken: lease.token,
  });
  await store.releaseLease(id, lease.token);
  return id;
}

async function personTask(store: Store): Promise<string> {
  const [created] = await store.createTask({ created: make.created() });
  return created?.taskId ?? "";
}

describe("the runnable order's head start", () => {
  it("puts a person's task ahead of routine work up to the head start, and behind anything older", async () => {
    let now = Date.parse("2026-12-07T12:00:00.000Z");
    const store = new MemoryStore({ now: () => now });
    const routine = await routineTask(store);
    now += PERSON_HEAD_START_MS - 1;
    const soon = await personTask(store);
    now += 2;
    const late = await personTask(store);
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([soon, routine, late]);
  });

  it("lets routine work through a steady stream of people's tasks (no starvation)", async () => {
    let now = Date.parse("2026-12-07T12:00:00.000Z");
    const store = new MemoryStore({ now: () => now });
    const routine = await routineTask(store);
    // One worker claims one task a second; every second a person starts a new task as well.
    const claimed: string[] = [];
    for (let second = 0; second < 3 * (PERSON_HEAD_START_MS / 1000); second++) {
      now += 1000;
      await personTask(store);
      const [claim] = await store.claimRunnable({ holder: { id: "w1" }, ttlMs: 1_000_000 });
      if (claim !== undefined) claimed.push(claim.task.taskId);
      if (claim?.task.taskId === routine) break;
    }
    // People's tasks go first, but the routine task is claimed once they are a head start newer.
    expect(claimed.at(-1)).toBe(routine);
    expect(claimed.length).toBeLessThanOrEqual(PERSON_HEAD_START_MS / 1000 + 1);
    expect(claimed.length).toBeGreaterThan(1);
  });
});
