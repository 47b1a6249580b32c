/**
 * Arbitrary task logs for the console fold's property tests: the event arms the conversation and
 * the timeline read, over a few ids so that inputs repeat, calls start twice, legs are lost and
 * results come without a start, in any order (the fold must never throw, whatever order).
 */
import type { StoredEvent } from "@sema-agent/core";
import fc from "fast-check";

const legId = fc.constantFrom("l1", "l2", "l3");
const callId = fc.constantFrom("c1", "c2", "c3");
const name = fc.constantFrom("lookup", "write_note");
const usage = fc.record({ inputTokens: fc.nat(500), outputTokens: fc.nat(500) });
const digest = "a".repeat(64);

/** One event without its identity (`taskId`, `seq`, `at`). */
export const eventArm: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({
    type: fc.constant("leg_started"),
    v: fc.constant(1),
    legId,
    trigger: fc.constantFrom("start", "resume"),
  }),
  fc.record({
    type: fc.constant("leg_ended"),
    v: fc.constant(1),
    legId,
    reason: fc.constantFrom("completed", "parked:approval", "parked:crash", "parked:tool", "failed"),
  }),
  fc.record({
    type: fc.constant("human_input"),
    v: fc.constant(1),
    inputId: fc.constantFrom("i1", "i2"),
    carrier: fc.constantFrom("steer", "nextTurn"),
    source: fc.constantFrom("user", "operator"),
    delivery: fc.constantFrom("received", "applied", "dropped"),
    sessionSeq: fc.constant(0),
    text: fc.string({ maxLength: 8 }),
    actor: fc.constant({ id: "dana", verified: true }),
  }),
  fc.record({
    type: fc.constant("user_message"),
    v: fc.constant(1),
    entryId: fc.constant("e"),
    content: fc.string({ maxLength: 8 }),
    inputIds: fc.subarray(["i1", "i2"]),
  }),
  fc.record({
    type: fc.constant("model_turn"),
    v: fc.constant(1),
    legId,
    sessionSeq: fc.integer({ min: 1, max: 9 }),
    text: fc.string({ maxLength: 8 }),
    toolCalls: fc.uniqueArray(fc.record({ callId, name, input: fc.constant({ q: "x" }) }), {
      selector: (call) => call.callId,
      maxLength: 2,
    }),
    usage,
    finishReason: fc.constantFrom("stop", "tool-calls", "error"),
  }),
  fc.record({
    type: fc.constant("task_forked"),
    v: fc.constant(1),
    origin: fc.constantFrom("fork", "import"),
    source: fc.constant({ taskId: "t0", seq: 2 }),
  }),
  fc.record({
    type: fc.constant("tool_call_started"),
    v: fc.constant(1),
    legId,
    callId,
    name,
    attempt: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    type: fc.constant("tool_result"),
    v: fc.constant(1),
    callId,
    name,
    status: fc.constantFrom("ok", "error", "denied", "interrupted"),
    content: fc.constantFrom("done", "<untrusted-ab12>\nhi\n</untrusted-ab12>"),
  }),
  fc.record({
    type: fc.constant("approval_requested"),
    v: fc.constant(1),
    legId,
    callId,
    name,
    inputJson: fc.constant('{"q":"x"}'),
    digest: fc.constant(digest),
  }),
  fc.record({
    type: fc.constant("approval_decided"),
    v: fc.constant(1),
    callId,
    digest: fc.constant(digest),
    decision: fc.constantFrom("approve", "deny"),
    actor: fc.constant({ id: "dana", verified: true }),
  }),
  fc.record({ type: fc.constant("task_completed"), v: fc.constant(1), result: fc.constantFrom("done", '{"a":[1]}') }),
);

/** A log: `task_created`, the objective's input, then arbitrary events, with seqs in order and times that never go back. */
export const taskLog: fc.Arbitrary<StoredEvent[]> = fc
  .array(fc.tuple(eventArm, fc.nat(3000)), { maxLength: 40 })
  .map((arms) => {
    let at = Date.parse("2026-12-01T00:00:00.000Z");
    const events = [
      { type: "task_created", v: 1, objective: "Do it", principal: "local" },
      // What startTask writes with it: the objective as the task's first input.
      {
        type: "human_input",
        v: 1,
        inputId: "i0",
        carrier: "objective",
        source: "user",
        delivery: "received",
        sessionSeq: 0,
        text: "Do it",
      },
      ...arms.map(([arm]) => arm),
    ];
    return events.map((arm, index) => {
      at += arms[index - 2]?.[1] ?? 0;
      return { ...arm, taskId: "t1", seq: index + 1, at: new Date(at).toISOString() } as unknown as StoredEvent;
    });
  });
