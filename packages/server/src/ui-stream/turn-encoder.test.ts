// The log → UI stream mapping, event by event: deltas only for a step seen from its start, the
// recorded text otherwise (never twice), where a stream ends, and the transcript built from it.
import type { StoredEvent } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";
import { describe, expect, it } from "vitest";
import { chatTranscript } from "./transcript.ts";
import { TurnEncoder } from "./turn-encoder.ts";

const at = "2026-12-01T00:00:00.000Z";
const ev = (seq: number, body: Record<string, unknown>) => ({ taskId: "t", seq, at, v: 1, ...body }) as StoredEvent;
const delta = (text: string): EphemeralEvent => ({ type: "text_delta", taskId: "t", legId: "L", delta: text });
const usage = { inputTokens: 1, outputTokens: 1 };
const turn = (seq: number, text: string, toolCalls: unknown[] = []) =>
  ev(seq, { type: "model_turn", legId: "L", sessionSeq: 1, text, toolCalls, usage, finishReason: "stop" });
const input = (seq: number, inputId: string, carrier: string, delivery: string, text: string) =>
  ev(seq, {
    type: "human_input",
    inputId,
    carrier,
    source: "user",
    delivery,
    sessionSeq: 0,
    text,
    actor: { id: "dana", verified: true },
  });
const legEnded = (seq: number, reason: string) => ev(seq, { type: "leg_ended", legId: "L", reason });

describe("TurnEncoder", () => {
  it("sends a step it joined midway whole from the record, and a step it saw begin as deltas plus the rest", () => {
    const encoder = new TurnEncoder({ messageId: "turn-2", endsAfter: 2 });
    // Joined mid-step, with no record of the step's start: its deltas are not this stream's.
    expect(encoder.live(undefined)).toEqual([]);
    expect(encoder.ephemeral(delta("Hel"), 0)).toEqual([]);
    expect(encoder.ephemeral(delta("lo"), undefined)).toEqual([]);
    expect(encoder.stored(turn(4, "Hello"))).toEqual([
      { type: "start-step" },
      { type: "text-start", id: "0-text" },
      { type: "text-delta", id: "0-text", delta: "Hello" },
      { type: "text-end", id: "0-text" },
      { type: "finish-step" },
    ]);
    // Seen from its start (after the boundary, live): the deltas, then only what they missed.
    expect(encoder.ephemeral(delta("Wor"), 4)).toEqual([
      { type: "start-step" },
      { type: "text-start", id: "4-text" },
      { type: "text-delta", id: "4-text", delta: "Wor" },
    ]);
    expect(encoder.stored(turn(5, "World"))).toEqual([
      { type: "text-delta", id: "4-text", delta: "ld" },
      { type: "text-end", id: "4-text" },
      { type: "finish-step" },
    ]);
  });

  it("takes a step's start from the hub when it joins mid-step, and holds a delta that comes before its step's event", () => {
    const encoder = new TurnEncoder({ messageId: "turn-2", endsAfter: 2 });
    encoder.stored(ev(3, { type: "leg_started", legId: "L", trigger: "start" }));
    expect(encoder.live({ afterSeq: 3, deltas: [delta("Hel")] })).toEqual([
      { type: "start-step" },
      { type: "text-start", id: "3-text" },
      { type: "text-delta", id: "3-text", delta: "Hel" },
    ]);
    expect(encoder.ephemeral(delta("lo"), 3)).toEqual([{ type: "text-delta", id: "3-text", delta: "lo" }]);
    // The next step's first delta, before the tail delivered the model_turn it follows: held.
    expect(encoder.ephemeral(delta("Wor"), 4)).toEqual([]);
    expect(encoder.stored(turn(4, "Hello"))).toEqual([
      { type: "text-end", id: "3-text" },
      { type: "finish-step" },
      { type: "start-step" },
      { type: "text-start", id: "4-text" },
      { type: "text-delta", id: "4-text", delta: "Wor" },
    ]);
    // A delta of a step already over is dropped.
    expect(encoder.ephemeral(delta("late"), 3)).toEqual([]);
  });

  it("goes on past a park it replays, ends at a later one, and hands over at a steer another request took", () => {
    const replay = new TurnEncoder({ messageId: "turn-2", endsAfter: 6 });
    expect(replay.stored(legEnded(5, "parked:approval"))).toEqual([
      { type: "data-sema-parked", id: "parked-L", data: { reason: "approval" } },
    ]);
    expect(replay.done).toBe(false);
    expect(replay.stored(legEnded(7, "parked:shutdown")).at(-1)).toMatchObject({ type: "data-sema-parked" });
    expect(replay.done).toBe(false);
    expect(replay.stored(legEnded(8, "parked:approval")).at(-1)).toEqual({
      type: "finish",
      finishReason: "tool-calls",
    });
    expect(replay.done).toBe(true);

    const earlier = new TurnEncoder({ messageId: "turn-2", endsAfter: 2, handedOver: (id) => id === "steer-1" });
    expect(earlier.stored(input(3, "steer-0", "wake", "received", "not taken over"))).toHaveLength(1);
    expect(earlier.stored(input(4, "steer-1", "wake", "received", "taken over"))).toEqual([
      { type: "finish", finishReason: "stop" },
    ]);
    expect(earlier.done).toBe(true);
  });

  it("says a steer was received, then applied where the model took it; an interrupt is an abort", () => {
    const encoder = new TurnEncoder({ messageId: "turn-2", endsAfter: 2 });
    const received = encoder.stored(input(3, "s1", "wake", "received", "use tabs"));
    expect(received).toEqual([
      {
        type: "data-sema-steer",
        id: "s1",
        data: { inputId: "s1", status: "received", text: "use tabs", from: "dana" },
      },
    ]);
    expect(encoder.stored(ev(4, { type: "user_message", entryId: "e", content: "framed", inputIds: ["s1"] }))).toEqual([
      { type: "data-sema-steer", id: "s1", data: { inputId: "s1", status: "applied", text: "use tabs", from: "dana" } },
      { type: "steering-message", id: "s1", parts: [{ type: "text", text: "use tabs" }] },
    ]);
    expect(encoder.stored(legEnded(5, "parked:interrupt")).at(-1)).toEqual({ type: "abort", reason: "interrupted" });
  });

  it("tells a denied approval (output-denied) from a call a hook refused (an error)", () => {
    const encoder = new TurnEncoder({ messageId: "turn-2", endsAfter: 2 });
    const denied = (callId: string) =>
      ev(9, { type: "tool_result", callId, name: "write_note", status: "denied", content: "denied by dana" });
    encoder.stored(
      ev(3, {
        type: "approval_decided",
        callId: "c1",
        digest: "0".repeat(64),
        decision: "deny",
        actor: { id: "dana", verified: true },
      }),
    );
    expect(encoder.stored(denied("c1"))).toEqual([{ type: "tool-output-denied", toolCallId: "c1" }]);
    expect(encoder.stored(denied("c2"))).toEqual([
      { type: "tool-output-error", toolCallId: "c2", errorText: "denied by dana" },
    ]);
  });
});

describe("chatTranscript", () => {
  it("is each turn's opening message, its assistant message, then the steers sent during it", () => {
    const log = [
      ev(1, { type: "task_created", objective: "hi", principal: "p" }),
      input(2, "obj", "objective", "received", "Write a note."),
      ev(3, { type: "leg_started", legId: "L", trigger: "start" }),
      input(4, "s1", "wake", "received", "Use tabs."),
      turn(5, "Noted."),
      legEnded(6, "completed"),
      input(7, "f1", "wake", "parked", "Thanks!"),
      turn(8, "You are welcome."),
    ];
    const messages = chatTranscript(log);
    expect(messages.map((message) => `${message.role}:${message.id}`)).toEqual([
      "user:obj",
      "assistant:turn-2",
      "user:s1",
      "user:f1",
      "assistant:turn-7",
    ]);
    expect(messages[1]?.parts).toEqual([
      {
        type: "data-sema-steer",
        id: "s1",
        data: { inputId: "s1", status: "received", text: "Use tabs.", from: "dana" },
      },
      { type: "step-start" },
      { type: "text", text: "Noted.", state: "done" },
    ]);
    expect(messages[4]?.parts.at(-1)).toEqual({ type: "text", text: "You are welcome.", state: "done" });
  });
});
