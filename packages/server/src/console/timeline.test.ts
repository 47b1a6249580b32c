/**
 * The console's timeline (`console/timeline.js`, plain JavaScript the browser loads) over a fork's
 * log: the leg its copy left open ends at the `task_forked`, rather than running for ever.
 */
import { describe, expect, it } from "vitest";

interface Leg {
  legId: string;
  reason?: string;
  duration?: number;
}

const { buildTimeline } = (await import(new URL("../../console/timeline.js", import.meta.url).href)) as {
  buildTimeline: (events: readonly Record<string, unknown>[]) => Leg[];
};

const at = (s: number) => `2026-12-01T00:00:0${s}.000Z`;

describe("buildTimeline", () => {
  it("ends a leg a fork's copy left open at its task_forked; a later leg runs as any", () => {
    const legs = buildTimeline([
      { type: "task_created", seq: 1, at: at(0) },
      { type: "leg_started", seq: 2, at: at(1), legId: "l1", trigger: "start" },
      { type: "model_turn", seq: 3, at: at(2), sessionSeq: 1, toolCalls: [] },
      { type: "task_forked", seq: 4, at: at(3), origin: "fork", source: { taskId: "t0", seq: 3 } },
      { type: "leg_started", seq: 5, at: at(5), legId: "l2", trigger: "resume" },
    ]);
    expect(legs.map(({ legId, reason, duration }) => ({ legId, reason, duration }))).toEqual([
      { legId: "l1", reason: "forked", duration: 2000 },
      { legId: "l2", reason: undefined, duration: undefined },
    ]);
  });
});
