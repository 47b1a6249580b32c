// The hub keeps the deltas of each task's model step under way, tagged with the stored event the
// step began after, so a stream that joins mid-step has the step from its start.
import type { StoredEvent } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { EventHub } from "./event-hub.ts";

const stored = (seq: number, type: string) => ({ taskId: "t", seq, at: "", v: 1, type }) as unknown as StoredEvent;
const delta = (text: string) => ({ type: "text_delta" as const, taskId: "t", legId: "L", delta: text });

describe("EventHub", () => {
  it("tags each delta with its step and keeps the step under way until the next begins or the leg ends", () => {
    const hub = new EventHub();
    const heard: [string, number | undefined][] = [];
    hub.subscribe("t", (event, step) => heard.push(["delta" in event ? event.delta : "", step]));
    hub.publish(delta("before any step"));
    hub.publish(stored(3, "leg_started"));
    hub.publish(delta("a"));
    hub.publish(stored(4, "human_input"));
    hub.publish(delta("b"));
    expect(hub.step("t")).toEqual({ afterSeq: 3, deltas: [delta("a"), delta("b")] });
    hub.publish(stored(5, "model_turn"));
    expect(hub.step("t")).toEqual({ afterSeq: 5, deltas: [] });
    hub.publish(delta("c"));
    hub.publish(stored(6, "leg_ended"));
    expect(hub.step("t")).toBeUndefined();
    expect(heard).toEqual([
      ["before any step", undefined],
      ["a", 3],
      ["b", 3],
      ["c", 5],
    ]);
  });

  it("stops keeping a step past its byte budget (a joining stream then waits for the step's record)", () => {
    const hub = new EventHub();
    hub.publish(stored(3, "leg_started"));
    hub.publish(delta("x".repeat(200_000)));
    expect(hub.step("t")).toBeUndefined();
  });
});
