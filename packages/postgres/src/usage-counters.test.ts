import type { TaskEvent } from "@sema-agent/core/protocol";
import { describe, expect, it } from "vitest";
import { addTurnUsage, turnUsageColumns } from "./usage-counters.ts";

describe("addTurnUsage", () => {
  it("counts a turn's tokens as a turn, and a tool's own model usage (tool_result v 2) as tokens only", () => {
    const events: TaskEvent[] = [
      {
        type: "model_turn",
        v: 1,
        legId: "l",
        sessionSeq: 1,
        text: "",
        toolCalls: [],
        usage: { inputTokens: 10, outputTokens: 2 },
        finishReason: "stop",
      },
      { type: "tool_result", v: 1, callId: "c1", name: "fetch", status: "ok", content: "page" },
      {
        type: "tool_result",
        v: 2,
        callId: "c2",
        name: "triage",
        status: "ok",
        content: "{}",
        usage: { inputTokens: 70, outputTokens: 3, cachedInputTokens: 5 },
        model: "reader-model",
      },
    ];
    const columns = turnUsageColumns();
    addTurnUsage(columns, "t1", events);
    expect(columns).toEqual({
      tasks: ["t1", "t1"],
      models: [null, "reader-model"],
      input: [10, 70],
      cached: [0, 5],
      output: [2, 3],
      turns: [1, 0],
    });
  });
});
