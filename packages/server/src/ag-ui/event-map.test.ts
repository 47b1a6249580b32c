import type { StoredEvent } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { AgUiEventMap } from "./event-map.ts";

const at = { taskId: "t", at: "2026-12-01T10:00:00.000Z" };
const turn = (seq: number, sessionSeq: number, more: Record<string, unknown>): StoredEvent =>
  ({
    ...at,
    seq,
    type: "model_turn",
    v: 1,
    legId: "leg-1",
    sessionSeq,
    text: "",
    toolCalls: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    finishReason: "stop",
    ...more,
  }) as StoredEvent;
const delta = (text: string) => ({ type: "text_delta" as const, taskId: "t", legId: "leg-1", delta: text });
const shown = (events: Array<{ type: string; delta?: unknown }>) =>
  events
    .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
    .map((e) => e.delta)
    .join("");

describe("the log as AG-UI events", () => {
  it("streams a turn's deltas into its message and closes it with only what they had not shown", () => {
    const map = new AgUiEventMap(0);
    const live = [...map.delta(delta("Hel")), ...map.delta(delta("lo"))];
    expect(live.map((e) => e.type)).toEqual([
      "STEP_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
    ]);
    const stored = map.stored(turn(5, 1, { text: "Hello, world" }));
    expect(stored.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STEP_FINISHED"]);
    expect(shown([...live, ...stored])).toBe("Hello, world");
    expect(new Set([...live, ...stored].map((e) => (e as { messageId?: string }).messageId).filter(Boolean))).toEqual(
      new Set(["sema-turn-1"]),
    );
  });

  it("sends a turn without deltas whole: reasoning, text, then its calls under the turn's message", () => {
    const map = new AgUiEventMap(2);
    const events = map.stored(
      turn(9, 3, {
        text: "Checking.",
        reasoning: "think",
        toolCalls: [{ callId: "c1", name: "lookup", input: { q: "x" } }],
      }),
    );
    expect(events.map((e) => e.type)).toEqual([
      "STEP_STARTED",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "STEP_FINISHED",
    ]);
    expect(events[9]).toMatchObject({ toolCallId: "c1", toolCallName: "lookup", parentMessageId: "sema-turn-3" });
    expect(events[10]).toMatchObject({ delta: '{"q":"x"}' });
  });

  it("closes a message of deltas whose turn was never recorded, and echoes no result the client sent", () => {
    const map = new AgUiEventMap(0, new Set(["from-client"]));
    map.delta(delta("partial"));
    // The model call was retried: the recorded turn is another one.
    const events = map.stored(turn(4, 2, { text: "Done." }));
    expect(events.slice(0, 2)).toMatchObject([
      { type: "TEXT_MESSAGE_END", messageId: "sema-turn-1" },
      { type: "STEP_FINISHED", stepName: "sema-turn-1" },
    ]);
    expect(shown(events)).toBe("Done.");
    const result = (callId: string) =>
      ({
        ...at,
        seq: 6,
        type: "tool_result",
        v: 1,
        callId,
        name: "x",
        status: "ok",
        content: "fenced",
        output: { a: 1 },
      }) as StoredEvent;
    expect(map.stored(result("from-client"))).toEqual([]);
    expect(map.stored(result("other"))).toMatchObject([
      { type: "TOOL_CALL_RESULT", toolCallId: "other", content: '{"a":1}' },
    ]);
    expect(map.close()).toEqual([]);
  });
});
