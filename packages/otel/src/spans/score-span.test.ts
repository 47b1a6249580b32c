// A verdict recorded after a task ended (task_scored) is on its trace as a span of its own under
// the task's root (the root is exported and never changed), and on the sema.task.score histogram.
import type { StoredEvent } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { foldMeasurements } from "../metrics/metric-fold.ts";
import { METRIC } from "../metrics/metric-names.ts";
import { foldSpans } from "./span-fold.ts";

const at = (s: number) => `2026-12-01T10:00:${String(s).padStart(2, "0")}.000Z`;
const LOG: StoredEvent[] = [
  { taskId: "t", seq: 1, at: at(0), type: "task_created", v: 1, objective: "Capital?", principal: "p", agent: "geo" },
  { taskId: "t", seq: 2, at: at(1), type: "leg_started", v: 1, legId: "l1", trigger: "start" },
  {
    taskId: "t",
    seq: 3,
    at: at(2),
    type: "model_turn",
    v: 1,
    legId: "l1",
    sessionSeq: 1,
    text: "Lisbon.",
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 2 },
    finishReason: "stop",
  },
  { taskId: "t", seq: 4, at: at(2), type: "task_completed", v: 1, result: "Lisbon." },
  { taskId: "t", seq: 5, at: at(2), type: "leg_ended", v: 1, legId: "l1", reason: "completed" },
  { taskId: "t", seq: 6, at: at(3), type: "task_scored", v: 1, scorer: "exact-match", value: 1, experiment: "e1" },
  { taskId: "t", seq: 7, at: at(4), type: "task_scored", v: 1, scorer: "judge:tone", value: 0.5, reason: "curt" },
];

describe("task_scored on the trace", () => {
  it("is a span of its own under the task's root, at its instant, with the verdict", () => {
    const spans = foldSpans(LOG);
    const root = spans.find((s) => s.parentKey === undefined);
    const scores = spans.filter((s) => s.name.startsWith("score "));
    expect(scores.map((s) => [s.name, s.parentKey, s.start, s.end])).toEqual([
      ["score exact-match", root?.key, at(3), at(3)],
      ["score judge:tone", root?.key, at(4), at(4)],
    ]);
    expect(scores[0]?.attributes).toEqual({
      "sema.score.name": "exact-match",
      "sema.score.value": 1,
      "sema.score.experiment": "e1",
    });
    expect(scores[1]?.attributes).toMatchObject({ "sema.score.reason": "curt" });
    // The root ended with the task, and is not changed by what came after.
    expect(root?.end).toBe(at(2));
  });

  it("is measured on sema.task.score by scorer and agent, never by experiment", () => {
    const scores = foldMeasurements(LOG).filter((m) => m.metric === METRIC.taskScore);
    expect(scores).toEqual([
      {
        metric: METRIC.taskScore,
        value: 1,
        attributes: { "gen_ai.agent.name": "geo", "sema.score.name": "exact-match" },
      },
      {
        metric: METRIC.taskScore,
        value: 0.5,
        attributes: { "gen_ai.agent.name": "geo", "sema.score.name": "judge:tone" },
      },
    ]);
  });
});
