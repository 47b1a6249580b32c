import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { exportTask } from "../time-travel/export-task.ts";
import { recordTrip } from "../time-travel/recorded-task.fixture.ts";
import { assertReplayIdentical } from "./replay-recording.ts";

describe("assertReplayIdentical", () => {
  it("passes for the agent that recorded the file, and fails with the diff when what the model sees changed", async () => {
    const store = new MemoryStore();
    const { taskId, agent } = await recordTrip(store);
    const file = await exportTask(store, taskId);
    await expect(assertReplayIdentical(file, { agent })).resolves.toMatchObject({ outcome: "identical" });
    await expect(assertReplayIdentical(file, { agent: { ...agent, temperature: 0.9 } })).rejects.toThrow(
      /first divergence at turn 1 \(seq 6\):\nmodel settings differ[\s\S]*"temperature": 0.9/,
    );
  });
});
