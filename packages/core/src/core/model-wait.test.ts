// A hand-written log of two model parks in a row, never regenerated: it must keep validating and
// folding to what it meant when it was written.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { wantsWorker } from "../adapters/store-rules.ts";
import type { StoredEvent } from "../protocol/task-event.ts";
import { validateEvents } from "./event-validation.ts";
import { fold } from "./fold.ts";
import { dueTimerInputs } from "./input-delivery.ts";
import { isModelWait, modelWaitRetirements } from "./model-wait.ts";

const LOG = new URL("../../fixtures/flows/parked-model.jsonl", import.meta.url);
const events = readFileSync(LOG, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as StoredEvent);

describe("model parks (fixtures/flows/parked-model.jsonl)", () => {
  it("validates, and folds to a task parked for its model with the latest park's timer only", () => {
    expect(() => validateEvents(events.map(({ taskId: _t, seq: _s, at: _a, ...event }) => event))).not.toThrow();
    const state = fold(events);
    expect(state.summary).toMatchObject({
      status: "parked",
      parkedReason: "model",
      parkedDetail: "server_error",
      runnable: false,
      timers: { "model-wait:leg-2": Date.parse("2026-12-01T10:00:45.000Z") },
    });
    expect(state.modelParks).toBe(2);
    expect(state.timers.map((t) => t.wakeId)).toEqual(["model-wait:leg-2"]);
    // Nothing reached the transcript but the objective: the next leg asks the same turn again.
    expect(state.transcript).toEqual([{ role: "user", entryId: "entry:in-obj", content: "Say hi" }]);
    // A worker will want it once the timer is due.
    expect(wantsWorker(state.summary)).toBe(true);
  });

  it("a model park's timer is retired, never delivered as a wake message", () => {
    const state = fold(events);
    expect(dueTimerInputs(state, Number.MAX_SAFE_INTEGER, "parked", "leg-3")).toEqual([]);
    expect(modelWaitRetirements(state)).toEqual([
      {
        type: "human_input",
        v: 1,
        inputId: "model-wait:leg-2",
        carrier: "wake",
        source: "system",
        delivery: "dropped",
        sessionSeq: 0,
      },
    ]);
    const retired = fold(modelWaitRetirements(state), state);
    expect(retired.timers).toEqual([]);
    expect(retired.summary.timers).toEqual({});
    expect(retired.inputs).toEqual([]);
    expect(isModelWait("wake-1")).toBe(false);
  });

  it("a model turn resets the count of parks in a row", () => {
    const answered = fold(
      [
        {
          type: "model_turn",
          v: 1,
          legId: "leg-3",
          sessionSeq: 1,
          text: "hi",
          toolCalls: [],
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: "stop",
        },
      ],
      fold(events),
    );
    expect(answered.modelParks).toBeUndefined();
  });
});
