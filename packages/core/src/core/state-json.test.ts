import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "../testing/event-factories.ts";
import { Folder } from "./fold.ts";
import { StateJson } from "./state-json.ts";
import { anyLog } from "./task-log.fixture.ts";

describe("StateJson", () => {
  it("is JSON.stringify(state) at every step of any log, one serializer for the whole log", () => {
    fc.assert(
      fc.property(anyLog, (events) => {
        const folder = new Folder();
        const json = new StateJson();
        for (const event of events) {
          folder.apply(event);
          expect(json.of(folder.state)).toBe(JSON.stringify(folder.state));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("stays exact across a compaction, which rebuilds the transcript from the same entries", () => {
    const folder = new Folder();
    const json = new StateJson();
    const events: TaskEvent[] = [
      make.created("p1", "objective"),
      make.legStarted(),
      { type: "user_message", v: 1, entryId: "e1", content: 'héllo \u0000 \u2028 "quoted"', inputIds: [] },
      make.turn(1, "one"),
      { type: "user_message", v: 1, entryId: "e2", content: "two", inputIds: [] },
      make.turn(2, "two"),
    ];
    for (const event of events) folder.apply(event);
    expect(json.of(folder.state)).toBe(JSON.stringify(folder.state));
    folder.apply({ type: "compaction", v: 1, throughSeq: 4, summary: "Earlier: one.", entryId: "summary-1" });
    expect(folder.state.transcript[0]).toMatchObject({ content: "Earlier: one." });
    expect(json.of(folder.state)).toBe(JSON.stringify(folder.state));
  });
});
