import { describe, expect, it } from "vitest";
import type { TaskSummary } from "../protocol/task-summary.ts";
import { make } from "../testing/event-factories.ts";
import { EMPTY_SUMMARY, summarize } from "./task-summary.ts";
import {
  claimOrderKey,
  isPersonEvent,
  laneOfEvents,
  laneOfSummary,
  laneRank,
  PERSON_HEAD_START_MS,
  writeLaneOf,
} from "./work-lane.ts";

const summary = (over: Partial<TaskSummary>): TaskSummary => ({ ...EMPTY_SUMMARY, ...over });

describe("work lanes", () => {
  it("counts a person's inputs, interrupts, cancels, decisions and resumes as a person's events", () => {
    expect(isPersonEvent(make.input("received", "steer"))).toBe(true);
    expect(isPersonEvent(make.input("applied", "nextTurn"))).toBe(true);
    expect(isPersonEvent({ type: "interrupt_requested", v: 1 })).toBe(true);
    expect(isPersonEvent({ type: "task_cancelled", v: 1 })).toBe(true);
    expect(isPersonEvent({ type: "resume_requested", v: 1 })).toBe(true);
    expect(isPersonEvent(make.note("legacy interrupt", "interrupt_requested"))).toBe(true);
    expect(
      isPersonEvent({
        type: "approval_decided",
        v: 1,
        callId: "c1",
        digest: "0".repeat(64),
        decision: "approve",
        actor: { id: "alice", verified: true },
      }),
    ).toBe(true);
  });

  it("puts a write carrying a person's own event in the attended lane, whatever its writer asked", () => {
    expect(writeLaneOf([make.input("received", "steer")], undefined)).toBe("attended");
    expect(writeLaneOf([make.turn(1), make.input("applied", "steer")], "routine")).toBe("attended");
    expect(writeLaneOf([make.legStarted()], "person")).toBe("person");
    expect(writeLaneOf([make.turn(1)], undefined)).toBe("routine");
    expect(writeLaneOf([make.input("received", "wake")], "routine")).toBe("routine");
    // A new task's objective, created or delivered by its first leg: the person lane, not attended.
    expect(writeLaneOf([make.created(), make.input("received", "objective")], undefined)).toBe("person");
    expect(writeLaneOf([make.legStarted(), make.input("applied", "objective")], "routine")).toBe("person");
    expect(writeLaneOf([make.input("applied", "objective")], "attended")).toBe("attended");
    expect(writeLaneOf([make.input("applied", "objective"), make.input("applied", "steer")], "person")).toBe(
      "attended",
    );
  });

  it("leaves a timer's wake, the engine's own inputs and a leg's routine events in the routine lane", () => {
    expect(isPersonEvent(make.input("received", "wake"))).toBe(false);
    expect(isPersonEvent({ ...make.input("received", "steer"), source: "system" })).toBe(false);
    expect(isPersonEvent(make.turn(1))).toBe(false);
    expect(isPersonEvent(make.toolStarted("c1"))).toBe(false);
    expect(isPersonEvent(make.legStarted())).toBe(false);
    expect(isPersonEvent(make.note())).toBe(false);
    expect(laneOfEvents([make.turn(1), make.toolStarted("c1")])).toBe("routine");
    expect(laneOfEvents([make.turn(1), make.input("applied", "steer")])).toBe("person");
    expect(laneOfEvents([])).toBe("routine");
  });

  it("gives a task's next leg the person lane when what makes it runnable is a person's", () => {
    expect(laneOfSummary(summarize([make.created()]))).toBe("person");
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "input", openInputs: { i1: "steer" } }))).toBe(
      "person",
    );
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "approval", openApprovals: [] }))).toBe("person");
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "budget", resumeRequested: true }))).toBe("person");
    // Recovery, timers, children and approvals still waiting are routine.
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "crash" }))).toBe("routine");
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "shutdown" }))).toBe("routine");
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "input", openInputs: { w1: "wake" } }))).toBe(
      "routine",
    );
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "child", childResults: 1 }))).toBe("routine");
    expect(laneOfSummary(summary({ status: "parked", parkedReason: "approval", openApprovals: ["c1"] }))).toBe(
      "routine",
    );
    expect(laneRank("person")).toBeLessThan(laneRank("routine"));
  });

  it("orders a person's task a bounded head start ahead, never further", () => {
    const at = "2026-12-07T12:00:00.000Z";
    const routine = summary({ status: "parked", parkedReason: "shutdown" });
    const person = summary({ status: "parked", parkedReason: "input", openInputs: { i1: "steer" } });
    expect(claimOrderKey(at, routine)).toBe(Date.parse(at));
    expect(claimOrderKey(at, person)).toBe(Date.parse(at) - PERSON_HEAD_START_MS);
    // A person's task active up to the head start later than a routine one is still claimed first …
    const later = new Date(Date.parse(at) + PERSON_HEAD_START_MS - 1).toISOString();
    expect(claimOrderKey(later, person)).toBeLessThan(claimOrderKey(at, routine));
    // … and one active more than the head start later waits behind it: routine work is never starved.
    const muchLater = new Date(Date.parse(at) + PERSON_HEAD_START_MS + 1).toISOString();
    expect(claimOrderKey(muchLater, person)).toBeGreaterThan(claimOrderKey(at, routine));
  });
});
