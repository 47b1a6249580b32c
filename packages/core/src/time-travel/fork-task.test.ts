import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { forkTask } from "./fork-task.ts";
import { recordTrip } from "./recorded-task.fixture.ts";
import { unstamped } from "./unstamped.ts";

describe("forkTask", () => {
  it("records the trip", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const events = await store.read(taskId);
    console.log(
      types(events)
        .map((t, i) => `${i + 1} ${t}`)
        .join("\n"),
    );
  });

  it("forks at every seq: the prefix is the source's, the source unchanged, the fork parked", async () => {
    const store = new MemoryStore();
    const { taskId } = await recordTrip(store);
    const source = await store.read(taskId);
    const before = JSON.stringify(source);
    for (const event of source) {
      const fork = await forkTask(store, taskId, { atSeq: event.seq });
      expect(fork.seq).toBeLessThanOrEqual(event.seq);
      const copied = await store.read(fork.taskId);
      const prefix = copied.slice(0, fork.seq).map(unstamped);
      expect(prefix).toEqual(source.slice(0, fork.seq).map(unstamped));
      expect(copied[fork.seq]).toMatchObject({ type: "task_forked", source: { taskId, seq: fork.seq } });
      const record = await store.getTask(fork.taskId);
      expect(record.principal).toBe("acme");
      expect(record.summary.forkedFrom).toEqual({ taskId, seq: fork.seq, origin: "fork" });
      expect(["parked", "completed"]).toContain(record.summary.status);
    }
    expect(JSON.stringify(await store.read(taskId))).toBe(before);
  });
});
