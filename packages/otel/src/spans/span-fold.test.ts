// The fold over any log: it never throws and always gives a well-formed tree (one root, every
// parent in the trace, no span ending before it starts, times from the log), over logs generated
// from core's event factories in any order, cut anywhere, with legs lost and tasks woken after
// their end. And the cases that need a word: a lost leg, an interrupted call, an unfinished task.
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldSpans, SpanFold } from "./span-fold.ts";
import type { SpanRecord } from "./span-record.ts";

const T0 = Date.parse("2026-11-30T10:00:00.000Z");

/** Stamps events as a store would: the task, gapless seq from `first`, a second apart. */
function stamp(events: readonly TaskEvent[], first = 1): StoredEvent[] {
  return events.map(
    (event, i) =>
      ({ ...event, taskId: "t1", seq: first + i, at: new Date(T0 + (first + i) * 1000).toISOString() }) as StoredEvent,
  );
}

const legId = fc.constantFrom("leg-1", "leg-2", "leg-3");
const callId = fc.constantFrom("c1", "c2", "c3");
const anyEvent: fc.Arbitrary<TaskEvent> = fc.oneof(
  fc.constant(make.created()),
  fc
    .tuple(legId, fc.constantFrom("start", "resume", "wake", "recover" as const))
    .map(([id, t]) => make.legStarted(id, t)),
  fc
    .tuple(
      legId,
      fc.constantFrom("completed", "failed", "cancelled", "parked:approval", "parked:tool", "parked:crash" as const),
    )
    .map(([id, reason]) => make.legEnded(id, reason)),
  fc.constantFrom("received", "parked", "applied", "dropped" as const).map((delivery) => make.input(delivery)),
  fc.tuple(fc.nat(20), fc.array(callId, { maxLength: 2 }), legId).map(([seq, ids, leg]) =>
    make.turn(
      seq,
      "text",
      [...new Set(ids)].map((id) => ({ callId: id, name: "echo", input: { q: id } })),
      leg,
    ),
  ),
  fc.tuple(callId, legId).map(([id, leg]) => make.toolStarted(id, "echo", leg)),
  fc
    .tuple(callId, fc.constantFrom("ok", "error", "denied", "interrupted" as const))
    .map(([id, status]) => make.toolResult(id, "done", "echo", status)),
  fc.constant(make.note("n", "model_unavailable")),
  fc.constant<TaskEvent>({ type: "task_completed", v: 1, result: "r" }),
  fc.constant<TaskEvent>({ type: "task_failed", v: 1, error: { code: "tool_failed", message: "m" } }),
  fc.constant<TaskEvent>({ type: "task_cancelled", v: 1 }),
  fc.constant<TaskEvent>({ type: "interrupt_requested", v: 1 }),
  fc.constant<TaskEvent>({ type: "parent_notified", v: 1 }),
  // A delegating call: its span opens at the spawn and outlives its leg until the call's result.
  callId.map(
    (id) => ({ type: "child_task", v: 1, phase: "spawned", childTaskId: `t1~${id}`, callId: id }) as TaskEvent,
  ),
  fc.tuple(callId, fc.boolean()).map(([id, linked]) =>
    linked
      ? ({
          ...make.input("parked"),
          inputId: `in-${id}`,
          traceContext: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
        } as TaskEvent)
      : make.input("received"),
  ),
);

function wellFormed(spans: readonly SpanRecord[], events: readonly StoredEvent[]): void {
  const keys = spans.map((span) => span.key);
  expect(new Set(keys).size).toBe(keys.length);
  const roots = spans.filter((span) => span.parentKey === undefined);
  expect(roots.map((span) => span.key)).toEqual(events.length === 0 ? [] : ["task"]);
  // One trace: every span of the task is in its root's.
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(events.length === 0 ? 0 : 1);
  const ats = new Set(events.map((event) => event.at));
  for (const span of spans) {
    if (span.parentKey !== undefined) expect(keys).toContain(span.parentKey);
    expect(span.end).toBeDefined();
    expect(ats.has(span.start)).toBe(true);
    expect(ats.has(span.end ?? "")).toBe(true);
    expect((span.end ?? "") >= span.start).toBe(true);
    for (const event of span.events) expect(ats.has(event.at)).toBe(true);
  }
}

describe("foldSpans", () => {
  it("never throws and always gives a well-formed tree, from the start of a log or its middle", () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 40 }), fc.nat(5), fc.boolean(), (events, first, content) => {
        const stored = stamp(events, first + 1);
        wellFormed(foldSpans(stored, { captureContent: content }), stored);
      }),
      { numRuns: 300 },
    );
  });

  it("live (event by event, exporting what each ends) gives the same spans as the whole log", () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 40 }), (events) => {
        const stored = stamp([make.created(), ...events]);
        const fold = new SpanFold();
        const snapshots = new Map<SpanRecord, string>();
        const exported = stored.flatMap((event) => {
          const ended = fold.add(event);
          for (const span of ended) snapshots.set(span, JSON.stringify(span));
          return ended;
        });
        // What was handed out ended never changes afterwards (a live exporter already has it).
        for (const [span, snapshot] of snapshots) expect(JSON.stringify(span)).toBe(snapshot);
        // Each span is exported once, when it ends, and then no longer changes.
        expect(new Set(exported).size).toBe(exported.length);
        const whole = foldSpans(stored);
        const ended = whole.filter((span) => span.attributes["sema.span.open"] !== true);
        expect(exported.map((span) => span.key).sort()).toEqual(ended.map((span) => span.key).sort());
        // And it holds on to nothing it has handed out: only the spans still open.
        const open = whole.filter((span) => span.attributes["sema.span.open"] === true);
        expect(fold.open.map((span) => span.key).sort()).toEqual(open.map((span) => span.key).sort());
      }),
      { numRuns: 200 },
    );
  });

  it("a leg that ended without a record is lost, and its running call in doubt", () => {
    const spans = foldSpans(
      stamp([
        make.created(),
        make.legStarted("leg-1"),
        make.turn(1, "ok", [{ callId: "c1", name: "echo", input: {} }]),
        make.toolStarted("c1"),
        make.legStarted("leg-2", "recover"),
        make.toolStarted("c1", "echo", "leg-2"),
        make.toolResult("c1"),
        make.legEnded("leg-2"),
      ]),
    );
    const [firstLeg, secondLeg] = spans.filter((span) => span.name === "sema.leg");
    expect(firstLeg?.attributes["sema.leg.end_reason"]).toBe("lost");
    expect(firstLeg?.status).toEqual({ code: "error", message: "lost" });
    const [lost, rerun] = spans.filter((span) => span.name === "execute_tool echo");
    expect(lost?.attributes["sema.tool.in_doubt"]).toBe(true);
    expect(lost?.parentKey).toBe(firstLeg?.key);
    expect(rerun?.attributes["sema.tool.status"]).toBe("ok");
    expect(rerun?.parentKey).toBe(secondLeg?.key);
  });

  it("a fork's copy of an open leg ends at its task_forked, not lost at the fork's next leg", () => {
    const forked = {
      type: "task_forked",
      v: 1,
      origin: "fork",
      source: { taskId: "t-source", seq: 4 },
      atSeq: 5,
      actor: { id: "bob", verified: true },
    } as const;
    const spans = foldSpans(
      stamp([
        make.created(),
        make.legStarted("leg-1"),
        make.turn(1, "ok", [{ callId: "c1", name: "delegate", input: {} }]),
        make.toolStarted("c1", "delegate"),
        forked,
        make.legStarted("leg-2", "resume"),
        make.legEnded("leg-2"),
      ]),
    );
    const [copied, own] = spans.filter((span) => span.name === "sema.leg");
    expect(copied?.attributes["sema.leg.end_reason"]).toBe("forked");
    expect(copied?.status.code).not.toBe("error");
    expect(copied?.end).toBe(new Date(T0 + 5 * 1000).toISOString());
    const call = spans.find((span) => span.name === "execute_tool delegate");
    expect(call?.attributes["sema.tool.interrupted"]).toBe(true);
    expect(call?.parentKey).toBe(copied?.key);
    expect(own?.attributes["sema.leg.end_reason"]).toBe("completed");
  });

  it("a call cut off by its leg's end is interrupted; a task still parked has open spans, marked", () => {
    const spans = foldSpans(
      stamp([
        make.created(),
        make.legStarted("leg-1"),
        make.toolStarted("c1"),
        make.legEnded("leg-1", "parked:interrupt"),
        make.legStarted("leg-2", "resume"),
      ]),
    );
    const tool = spans.find((span) => span.name === "execute_tool echo");
    expect(tool?.attributes["sema.tool.interrupted"]).toBe(true);
    expect(tool?.status.code).toBe("error");
    const open = spans.filter((span) => span.attributes["sema.span.open"] === true).map((span) => span.name);
    expect(open).toEqual(["invoke_agent", "sema.leg"]);
  });

  it("ends the task's span with the leg that ended it, and marks a failure with its code", () => {
    const spans = foldSpans(
      stamp([
        make.created(),
        make.legStarted("leg-1"),
        { type: "task_failed", v: 1, error: { code: "tool_failed", message: "boom" } },
        make.legEnded("leg-1", "failed"),
      ]),
    );
    const root = spans.find((span) => span.key === "task");
    const leg = spans.find((span) => span.name === "sema.leg");
    expect(root?.end).toBe(leg?.end);
    expect(root?.status).toEqual({ code: "error", message: "tool_failed" });
    expect(root?.attributes["error.type"]).toBe("tool_failed");
  });
});
