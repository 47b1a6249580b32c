/**
 * Arbitrary session logs for property tests of the fold and what is built from it: every event
 * type, legs, inputs on every carrier, tool calls and results, approvals, compactions.
 */
import fc from "fast-check";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "../testing/event-factories.ts";

const legIds = ["leg-1", "leg-2", "leg-3"];
const inputIds = ["in-1", "in-2", "in-3", "in-4", "wake-1"];
const digest = "d".repeat(64);
const actor = fc.option(fc.record({ id: fc.string(), verified: fc.boolean() }), { nil: undefined });

/** Any valid event. Call ids of model turns are renumbered afterwards so they are unique per log. */
export const anyEvent: fc.Arbitrary<TaskEvent> = fc.oneof(
  fc.constant(make.created("p1", "objective")),
  fc.constant<TaskEvent>({
    ...make.created("p1", "objective"),
    v: 2,
    settings: { temperature: 0.1, toolChoice: { type: "tool", toolName: "t" }, output: { type: "object" } },
  }),
  fc
    .record({
      legId: fc.constantFrom(...legIds),
      trigger: fc.constantFrom("start", "resume", "wake", "recover" as const),
    })
    .map(({ legId, trigger }) => make.legStarted(legId, trigger)),
  fc
    .record({
      legId: fc.constantFrom(...legIds),
      reason: fc.constantFrom(
        "completed",
        "failed",
        "cancelled",
        "parked:input",
        "parked:approval",
        "parked:crash",
        "parked:child" as const,
      ),
    })
    .map(({ legId, reason }) => make.legEnded(legId, reason)),
  fc
    .record({
      inputId: fc.constantFrom(...inputIds),
      delivery: fc.constantFrom("received", "parked", "applied", "dropped" as const),
      carrier: fc.constantFrom("steer", "nextTurn", "resume", "wake", "objective"),
      actor,
    })
    .map(({ inputId, delivery, carrier, actor: a }) => {
      const event = make.input(delivery, carrier, inputId, `text of ${inputId}`);
      return a === undefined ? event : { ...event, actor: a };
    }),
  fc
    .string()
    .map(
      (content): TaskEvent => ({ type: "user_message", v: 1, entryId: `e-${content.length}`, content, inputIds: [] }),
    ),
  fc.record({ text: fc.string(), calls: fc.nat({ max: 3 }) }).map(({ text, calls }) =>
    make.turn(
      1,
      text,
      Array.from({ length: calls }, () => ({ callId: "renumber", name: "echo", input: { text } })),
    ),
  ),
  fc.nat({ max: 12 }).map((n) => make.toolStarted(`c${n}`)),
  fc
    .record({ n: fc.nat({ max: 12 }), status: fc.constantFrom("ok", "error", "denied", "interrupted" as const) })
    .map(({ n, status }) => make.toolResult(`c${n}`, `result ${n}`, "echo", status)),
  fc.nat({ max: 12 }).map(
    (n): TaskEvent => ({
      type: "approval_requested",
      v: 1,
      legId: "leg-1",
      callId: `c${n}`,
      name: "echo",
      inputJson: "{}",
      digest,
    }),
  ),
  fc.record({ n: fc.nat({ max: 12 }), decision: fc.constantFrom("approve", "deny" as const) }).map(
    ({ n, decision }): TaskEvent => ({
      type: "approval_decided",
      v: 1,
      callId: `c${n}`,
      digest,
      decision,
      scope: "tool-for-task",
      actor: { id: "a", verified: true },
    }),
  ),
  fc.string().map((content): TaskEvent => ({ type: "hook_feedback", v: 1, hook: "onStop", content })),
  fc.string().map((content): TaskEvent => ({ type: "hook_feedback", v: 1, hook: "output", content })),
  fc.constant(make.note()),
  fc
    .record({ id: fc.constantFrom("k1", "k2"), result: fc.boolean() })
    .map(
      ({ id, result }): TaskEvent =>
        result
          ? { type: "child_task", v: 1, phase: "result", childTaskId: id, status: "completed", result: "r" }
          : { type: "child_task", v: 1, phase: "spawned", childTaskId: id },
    ),
  // The budget ledger (child_task v 2): a share on a spawn; what was still held, and turns, on a result.
  fc.record({ id: fc.constantFrom("k1", "k2", "k3"), result: fc.boolean(), tokens: fc.nat({ max: 500 }) }).map(
    ({ id, result, tokens }): TaskEvent =>
      result
        ? {
            type: "child_task",
            v: 2,
            phase: "result",
            childTaskId: id,
            status: "failed",
            result: "r",
            usage: { inputTokens: tokens, outputTokens: 1 },
            held: { tokens: tokens % 7 },
            turns: 2,
          }
        : { type: "child_task", v: 2, phase: "spawned", childTaskId: id, reserved: { tokens, turns: 3 } },
  ),
  fc.nat({ max: 40 }).map(
    (throughSeq): TaskEvent => ({
      type: "compaction",
      v: 1,
      summary: "summary",
      throughSeq,
      entryId: `c-${throughSeq}`,
    }),
  ),
  fc
    .record({
      wakeId: fc.constantFrom("wake-1", "wake-2"),
      hour: fc.integer({ min: 0, max: 23 }),
      external: fc.boolean(),
    })
    .map(
      ({ wakeId, hour, external }): TaskEvent => ({
        type: "wake_scheduled",
        v: 1,
        wakeId,
        due: `2026-11-02T${String(hour).padStart(2, "0")}:00:00.000Z`,
        text: `wake ${wakeId}`,
        source: external ? "external" : "system",
        ...(external ? { from: "ci" } : {}),
      }),
    ),
  fc.constant<TaskEvent>({ type: "task_completed", v: 1, result: "done" }),
  fc.constant<TaskEvent>({ type: "task_failed", v: 1, error: { code: "ModelError", message: "boom" } }),
  fc.constant<TaskEvent>({ type: "task_cancelled", v: 1 }),
);

/** A log of up to 60 events, call ids unique. */
export const anyLog = fc.array(anyEvent, { maxLength: 60 }).map((events) => {
  let next = 0;
  return events.map((event) =>
    event.type === "model_turn"
      ? { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, callId: `c${next++}` })) }
      : event,
  );
});
