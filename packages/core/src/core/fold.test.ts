import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TaskEvent } from "../protocol/task-event.ts";
import type { TranscriptEntry } from "../protocol/transcript.ts";
import { make } from "../testing/event-factories.ts";
import { validateEvents } from "./event-validation.ts";
import {
  EMPTY_STATE,
  Folder,
  fold,
  outstandingReservations,
  stateFromJson,
  stateToJson,
  TASK_STATE_VERSION,
} from "./fold.ts";
import { anyLog } from "./task-log.fixture.ts";
import { waitingInputs } from "./waiting-inputs.ts";

const RUNS = { numRuns: 2_000 };

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
        const restored = stateFromJson(TASK_STATE_VERSION, snapshot);
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

  it("the ledger: running children hold their first spawn's share, ended ones what their first result held; cancelled, nothing", () => {
    fc.assert(
      fc.property(anyLog, (log) => {
        const state = fold(log);
        const expected = { tokens: 0, turns: 0 };
        if (state.summary.status !== "cancelled") {
          for (const child of state.children) {
            const first = log.find((e) => e.type === "child_task" && e.childTaskId === child.childTaskId);
            const reserved = first?.type === "child_task" && first.phase === "spawned" ? first.reserved : undefined;
            expect(child.reserved).toEqual(reserved);
            const ended = log.find(
              (e) => e.type === "child_task" && e.phase === "result" && e.childTaskId === child.childTaskId,
            );
            const held = child.status === "running" ? reserved : ended?.type === "child_task" ? ended.held : undefined;
            expected.tokens += held?.tokens ?? 0;
            expected.turns += held?.turns ?? 0;
          }
        }
        expect(outstandingReservations(state)).toMatchObject(expected);
      }),
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
    expect(stateFromJson(TASK_STATE_VERSION + 1, stateToJson(fold([])))).toBeUndefined();
    // A snapshot of the state before settings were folded (v 1) is refolded, not trusted.
    expect(stateFromJson(1, stateToJson(fold([])))).toBeUndefined();
    expect(stateFromJson(TASK_STATE_VERSION, null)).toBeUndefined();
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

describe("a child's result that lands before its parent's leg parks", () => {
  it("keeps the delegate call open for the next leg to answer, never interrupted", () => {
    const state = fold([
      { type: "task_created", v: 1, objective: "Parent", principal: "p" },
      { type: "leg_started", v: 1, legId: "leg-1", trigger: "start" },
      {
        type: "model_turn",
        v: 1,
        legId: "leg-1",
        sessionSeq: 1,
        text: "",
        toolCalls: [{ callId: "c1", name: "delegate", input: { objective: "Child" } }],
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: "tool-calls",
      },
      { type: "child_task", v: 1, phase: "spawned", childTaskId: "t~c1", callId: "c1" },
      {
        type: "child_task",
        v: 1,
        phase: "result",
        childTaskId: "t~c1",
        callId: "c1",
        status: "completed",
        result: "ok",
      },
      { type: "leg_ended", v: 1, legId: "leg-1", reason: "parked:child" },
    ]);
    expect(state.openToolCalls.map((call) => call.callId)).toEqual(["c1"]);
    expect(state.transcript.filter((entry) => entry.role === "tool")).toEqual([]);
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "child", runnable: true });
  });
});
