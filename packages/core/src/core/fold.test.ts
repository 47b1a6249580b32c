import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../internal/llm.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "../testing/event-factories.ts";
import { validateEvents } from "./event-validation.ts";
import { EMPTY_STATE, Folder, fold, stateFromJson, stateToJson } from "./fold.ts";
import { waitingInputs } from "./waiting-inputs.ts";

const RUNS = { numRuns: 2_000 };
const legIds = ["leg-1", "leg-2", "leg-3"];
const inputIds = ["in-1", "in-2", "in-3", "in-4", "wake-1"];
const digest = "d".repeat(64);
const actor = fc.option(fc.record({ id: fc.string(), verified: fc.boolean() }), { nil: undefined });

/** Any valid event. Call ids of model turns are renumbered afterwards so they are unique per log. */
const anyEvent: fc.Arbitrary<TaskEvent> = fc.oneof(
  fc.constant(make.created("p1", "objective")),
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
  fc.constant(make.note()),
  fc
    .record({ id: fc.constantFrom("k1", "k2"), result: fc.boolean() })
    .map(
      ({ id, result }): TaskEvent =>
        result
          ? { type: "child_task", v: 1, phase: "result", childTaskId: id, status: "completed", result: "r" }
          : { type: "child_task", v: 1, phase: "spawned", childTaskId: id },
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

const anyLog = fc.array(anyEvent, { maxLength: 60 }).map((events) => {
  let next = 0;
  return events.map((event) =>
    event.type === "model_turn"
      ? { ...event, toolCalls: event.toolCalls.map((call) => ({ ...call, callId: `c${next++}` })) }
      : event,
  );
});

/** Every assistant tool call answered by exactly one tool entry after it, and no stray answer. */
function pairing(transcript: TranscriptEntry[]): { unanswered: string[]; duplicate: string[]; stray: string[] } {
  const asked = new Set<string>();
  const answered = new Map<string, number>();
  const stray: string[] = [];
  for (const entry of transcript) {
    if (entry.role === "assistant") for (const call of entry.toolCalls) asked.add(call.callId);
    if (entry.role === "tool") {
      if (!asked.has(entry.callId)) stray.push(entry.callId);
      answered.set(entry.callId, (answered.get(entry.callId) ?? 0) + 1);
    }
  }
  return {
    unanswered: [...asked].filter((id) => !answered.has(id)),
    duplicate: [...answered].filter(([, n]) => n > 1).map(([id]) => id),
    stray,
  };
}

describe("fold properties", () => {
  it("the generator makes only valid events", () => {
    fc.assert(
      fc.property(anyLog, (log) => validateEvents(log)),
      { numRuns: 500 },
    );
  });

  it("never throws on any sequence of valid events", () => {
    fc.assert(
      fc.property(anyLog, (log) => void fold(log)),
      RUNS,
    );
  });

  it("folding in one go equals folding a snapshot (through JSON) plus the rest", () => {
    fc.assert(
      fc.property(anyLog, fc.nat(), (log, cut) => {
        const at = log.length === 0 ? 0 : cut % (log.length + 1);
        const snapshot = JSON.parse(JSON.stringify(stateToJson(fold(log.slice(0, at)))));
        const restored = stateFromJson(1, snapshot);
        expect(restored).toBeDefined();
        expect(fold(log.slice(at), restored)).toEqual(fold(log));
      }),
      RUNS,
    );
  });

  it("is pure: the state it starts from is never modified", () => {
    fc.assert(
      fc.property(anyLog, anyLog, (a, b) => {
        const base = fold(a);
        const copy = structuredClone(base);
        fold(b, base);
        expect(base).toEqual(copy);
      }),
      { numRuns: 500 },
    );
  });

  it("once a leg has ended, every tool call has exactly one result, unless it waits for an approval or a child", () => {
    fc.assert(
      fc.property(anyLog, (log) => {
        const folder = new Folder();
        for (const event of log) {
          folder.apply(event);
          const { transcript, openToolCalls } = folder.state;
          const { duplicate, stray, unanswered } = pairing(transcript);
          expect(duplicate).toEqual([]);
          expect(stray).toEqual([]);
          const waiting = new Set(folder.state.approvals.map((a) => a.callId));
          for (const child of folder.state.children)
            if (child.status === "running" && child.callId) waiting.add(child.callId);
          if (event.type === "task_cancelled" || (event.type === "leg_ended" && event.reason !== "parked:crash")) {
            expect(unanswered.filter((id) => event.type === "task_cancelled" || !waiting.has(id))).toEqual([]);
          } else
            expect(unanswered.sort()).toEqual(
              openToolCalls
                .map((c) => c.callId)
                .filter((id) => unanswered.includes(id))
                .sort(),
            );
        }
      }),
      RUNS,
    );
  });
});

describe("fold", () => {
  it("folds an empty log to the empty state", () => {
    expect(fold([])).toEqual(EMPTY_STATE);
  });

  it("refuses a snapshot of another state version", () => {
    expect(stateFromJson(2, stateToJson(fold([])))).toBeUndefined();
    expect(stateFromJson(1, null)).toBeUndefined();
  });

  it("compaction never strands a result or an open call", () => {
    const log: TaskEvent[] = [
      make.created(),
      make.legStarted(),
      { type: "user_message", v: 1, entryId: "e1", content: "go", inputIds: [] },
      make.turn(1, "", [{ callId: "a", name: "echo", input: {} }]),
      make.toolResult("a"),
      make.turn(2, "", [{ callId: "b", name: "echo", input: {} }]),
      // Cuts between call b (seq 6) and its result; b is still open, so its turn is kept.
      { type: "compaction", v: 1, summary: "S", throughSeq: 6, entryId: "c1" },
      make.toolResult("b"),
    ];
    const state = fold(log);
    expect(state.transcript.map((e) => e.role)).toEqual(["user", "assistant", "tool"]);
    expect(pairing(state.transcript)).toEqual({ unanswered: [], duplicate: [], stray: [] });
  });

  it("sorts waiting inputs by carrier", () => {
    const state = fold([
      make.created(),
      make.legStarted("leg-1"),
      make.input("received", "steer", "s1"),
      { ...make.input("received", "steer", "old"), legId: "leg-0" },
      make.input("received", "nextTurn", "n1"),
      { ...make.input("received", "steer", "q1"), policy: "queue" },
      make.input("parked", "wake", "w1"),
      make.input("received", "wake", "w2"),
      make.input("received", "objective", "o1"),
    ]);
    const waiting = waitingInputs(state);
    expect(waiting.steer.map((i) => i.inputId)).toEqual(["s1", "w2"]);
    expect(waiting.objective.map((i) => i.inputId)).toEqual(["o1"]);
    expect(waiting.resume.map((i) => i.inputId)).toEqual(["old"]);
    expect(waiting.nextTurn.map((i) => i.inputId)).toEqual(["n1", "q1"]);
    expect(waiting.wake.map((i) => i.inputId)).toEqual(["w1"]);
  });
});
