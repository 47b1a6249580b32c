import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TaskSummary } from "../protocol/task-summary.ts";
import { fold } from "./fold.ts";
import { anyLog } from "./task-log.fixture.ts";
import { EMPTY_SUMMARY, reduceSummary, summarizeAfter } from "./task-summary.ts";

const KEYS = new Set<string>([
  "status",
  "parkedReason",
  "parkedDetail",
  "resumeRequested",
  "legId",
  "openInputs",
  "timers",
  "openApprovals",
  "childResults",
  "childUsage",
  "sessionSeq",
  "usage",
  "parentReport",
  "runnable",
  "seqs",
]);

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

describe("the summary reducer", () => {
  it("never changes the summary it is given, and leaves no key undefined nor unknown", () => {
    fc.assert(
      fc.property(anyLog, (events) => {
        let summary = EMPTY_SUMMARY;
        events.forEach((event, i) => {
          // Frozen, deeply: a reducer that wrote into its input would throw here (strict mode).
          summary = reduceSummary(deepFreeze(summary), event, { seq: i + 1 });
          for (const [key, value] of Object.entries(summary)) {
            expect(KEYS.has(key), key).toBe(true);
            expect(value, key).not.toBeUndefined();
          }
        });
      }),
    );
  });

  it("reaches the same summary however the log is split, and from a summary parsed back from JSON", () => {
    // What a store does: reduce each append's events onto the summary it kept, which a SQL store
    // keeps as JSON (so the reducer meets parsed objects, not only its own).
    fc.assert(
      fc.property(anyLog, fc.array(fc.nat(), { maxLength: 4 }), (events, cuts) => {
        const whole = summarizeAfter(events, EMPTY_SUMMARY, 0);
        const points = [...new Set(cuts.map((cut) => cut % (events.length + 1)))].sort((a, b) => a - b);
        let summary: TaskSummary = EMPTY_SUMMARY;
        let from = 0;
        for (const to of [...points, events.length]) {
          summary = summarizeAfter(events.slice(from, to), summary, from);
          summary = JSON.parse(JSON.stringify(summary)) as TaskSummary;
          from = to;
        }
        expect(summary).toEqual(whole);
      }),
    );
  });

  it("is the summary the fold embeds", () => {
    fc.assert(
      fc.property(anyLog, (events) => {
        expect(fold(events).summary).toEqual(summarizeAfter(events, EMPTY_SUMMARY, 0));
      }),
    );
  });
});
