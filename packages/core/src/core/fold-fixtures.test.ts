// Historical fixtures: hand-written v1 logs, one per event arm, never regenerated. Whatever the
// code becomes, these logs must still validate and fold to what they meant when they were written.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../protocol/task-event.ts";
import { taskEventSchema } from "../protocol/task-event.ts";
import { isInterruptRequest, isResumeRequest } from "./command-events.ts";
import { provenanceAt } from "./entry-provenance.ts";
import { validateEvents } from "./event-validation.ts";
import { fold, outstandingReservations, UNSETTLED_CALL_CONTENT } from "./fold.ts";
import { reduceSummary, summarize } from "./task-summary.ts";

const DIR = new URL("../../fixtures/events/v1/", import.meta.url);

function load(name: string, dir: URL = DIR): StoredEvent[] {
  const text = readFileSync(new URL(`${name}.jsonl`, dir), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as StoredEvent);
}

function unstamped(events: StoredEvent[]): unknown[] {
  return events.map(({ taskId: _t, seq: _s, at: _a, ...event }) => event);
}

describe("v1 fixtures", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".jsonl"));

  it("cover every arm of the union, one file each", () => {
    const arms = taskEventSchema.options.map((option) => option.shape.type.value).sort();
    expect(files.map((f) => f.replace(/\.jsonl$/, "")).sort()).toEqual(arms);
    for (const arm of arms) expect(load(arm).some((event) => event.type === arm)).toBe(true);
  });

  it.each(files.map((f) => f.replace(/\.jsonl$/, "")))("%s validates and is gapless", (name) => {
    const events = load(name);
    expect(() => validateEvents(unstamped(events))).not.toThrow();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("task_forked: the copy's leg closes as forked, the edits apply, the unstarted call stays open", () => {
    const state = fold(load("task_forked"));
    expect(state.summary).toMatchObject({
      status: "parked",
      parkedReason: "forked",
      forkedFrom: { taskId: "t-source", seq: 6, origin: "fork" },
      openInputs: { "in-fork": "steer" },
      runnable: true,
    });
    expect(state.summary.legId).toBeUndefined();
    expect(state.model).toBe("anthropic:claude-sonnet-4-5");
    expect(state.settings).toEqual({ temperature: 0 });
    expect(state.openToolCalls.map((call) => [call.callId, call.started])).toEqual([["call-1", false]]);
    expect(state.summary.usage).toEqual({ inputTokens: 40, outputTokens: 8 });
    // The stores' reducer agrees with the fold, event by event.
    expect(summarize(load("task_forked"))).toEqual(state.summary);
    expect(
      reduceSummary(summarize(load("task_forked").slice(0, 6)), load("task_forked")[6] as StoredEvent),
    ).toMatchObject({ status: "parked", parkedReason: "forked", runnable: false });
  });

  it("task_scored: each scorer's latest verdict, the task's status unchanged", () => {
    const state = fold(load("task_scored"));
    expect(state.summary).toMatchObject({ status: "completed", runnable: false });
    expect(state.summary.scores).toEqual({
      includes: { value: 1, experiment: "exp-1" },
      "judge:helpful": { value: 0.75, reason: "Right; the rubric now allows brevity." },
    });
    expect(summarize(load("task_scored"))).toEqual(state.summary);
  });

  it("task_created: objective, principal, agent, model", () => {
    const state = fold(load("task_created"));
    expect(state).toMatchObject({
      objective: "Summarize README.md",
      principal: "alice",
      agent: "default",
      model: "anthropic:claude-sonnet-4-5",
      lastSeq: 2,
    });
    expect(state.summary.status).toBe("created");
    expect(state.inputs.map((i) => i.inputId)).toEqual(["in-obj"]);
  });

  it("leg_started / leg_ended: running, then parked with unanswered calls settled", () => {
    expect(fold(load("leg_started")).summary).toMatchObject({ status: "running", legId: "leg-1" });
    const state = fold(load("leg_ended"));
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "interrupt" });
    expect(state.summary.legId).toBeUndefined();
    expect(state.transcript.at(-1)).toEqual({
      role: "tool",
      callId: "call-1",
      name: "list_dir",
      status: "interrupted",
      content: UNSETTLED_CALL_CONTENT,
    });
  });

  it("human_input: received inputs wait, applied and dropped ones do not", () => {
    const state = fold(load("human_input"));
    expect(state.inputs.map((i) => [i.inputId, i.carrier, i.source])).toEqual([["in-2", "nextTurn", "supervisor"]]);
    expect(state.summary.openInputs).toEqual({ "in-2": "nextTurn" });
  });

  it("user_message: enters the transcript with its exact bytes", () => {
    const state = fold(load("user_message"));
    expect(state.transcript).toEqual([{ role: "user", entryId: "entry-1", content: "Say hi" }]);
    expect(state.inputs).toEqual([]);
  });

  it("model_turn: assistant entry, usage and sessionSeq", () => {
    const state = fold(load("model_turn"));
    expect(state.transcript.at(-1)).toEqual({
      role: "assistant",
      text: "Hi!",
      reasoning: "The user wants a greeting.",
      toolCalls: [],
    });
    expect(state.summary.usage).toEqual({
      inputTokens: 50,
      outputTokens: 3,
      cachedInputTokens: 40,
      reasoningTokens: 6,
    });
    expect(state.summary.sessionSeq).toBe(1);
  });

  it("tool_call_started: the call is open and in doubt", () => {
    const state = fold(load("tool_call_started"));
    expect(state.openToolCalls).toEqual([
      {
        callId: "call-1",
        name: "append_file",
        input: { path: "log.txt", content: "x\n" },
        started: true,
        attempt: 1,
        legId: "leg-1",
      },
    ]);
  });

  it("tool_checkpoint: a crashed call keeps its last checkpoint for the re-run", () => {
    const state = fold(load("tool_checkpoint"));
    expect(state.openToolCalls).toEqual([
      {
        callId: "call-1",
        name: "billing",
        input: { message: "Total for November?" },
        started: true,
        attempt: 1,
        legId: "leg-1",
        checkpoint: { phase: "accepted", remoteTaskId: "r-1" },
      },
    ]);
  });

  it("tool_result: each call answered once with the stored content", () => {
    const state = fold(load("tool_result"));
    expect(state.openToolCalls).toEqual([]);
    expect(
      state.transcript.filter((e) => e.role === "tool").map((e) => e.role === "tool" && [e.callId, e.status]),
    ).toEqual([
      ["call-1", "ok"],
      ["call-2", "error"],
    ]);
  });

  it("approval_requested / approval_decided: pending, then decided with a grant", () => {
    const requested = fold(load("approval_requested"));
    expect(requested.summary).toMatchObject({
      status: "parked",
      parkedReason: "approval",
      openApprovals: ["call-1"],
      runnable: false,
    });
    expect(requested.approvals[0]?.decision).toBeUndefined();
    const decided = fold(load("approval_decided"));
    expect(decided.approvals[0]).toMatchObject({
      decision: "approve",
      reason: "fine",
      actor: { id: "alice@example.com" },
    });
    expect(decided.grantedTools).toEqual(["delete_file"]);
    expect(decided.summary.runnable).toBe(true);
    // The call waits for its approval through the park, so the leg that resumes runs it.
    expect(decided.openToolCalls.map((c) => c.callId)).toEqual(["call-1"]);
    expect(decided.transcript.filter((e) => e.role === "tool")).toEqual([]);
  });

  it("hook_feedback: reaches the transcript framed", () => {
    expect(fold(load("hook_feedback")).transcript.at(-1)).toEqual({
      role: "user",
      entryId: "hook:4",
      content: "<system-reminder>\nRun the tests before you finish.\n</system-reminder>",
    });
  });

  it("engine_note: recorded, changes nothing the model sees", () => {
    expect(fold(load("engine_note")).transcript).toEqual([]);
  });

  it("interrupt_requested: the leg parks on it; the model sees nothing of it", () => {
    const events = load("interrupt_requested");
    const state = fold(events);
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "interrupt" });
    expect(events.filter(isInterruptRequest).map((e) => e.seq)).toEqual([5]);
    expect(state.transcript.some((entry) => JSON.stringify(entry).includes("nterrupt requested"))).toBe(false);
  });

  it("resume_requested: a parked task asks for its next leg", () => {
    expect(fold(load("interrupt_requested")).summary.resumeRequested).toBeUndefined();
    expect(fold(load("resume_requested")).summary).toMatchObject({ status: "parked", resumeRequested: true });
  });

  it("the older form of both commands, an engine_note of their kind, folds exactly as the arms do", () => {
    const legacy = readFileSync(new URL("../legacy/engine_note_commands.jsonl", DIR), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as StoredEvent);
    expect(() => validateEvents(unstamped(legacy))).not.toThrow();
    const arms = load("resume_requested");
    const { lastSeq: _l, ...legacyState } = fold(legacy);
    const { lastSeq: _a, ...armState } = fold(arms);
    expect(legacyState).toEqual(armState);
    expect(legacy.map((e) => [isInterruptRequest(e), isResumeRequest(e)])).toEqual(
      arms.map((e) => [isInterruptRequest(e), isResumeRequest(e)]),
    );
  });

  it("child_task: spawned, then its result makes the parent runnable", () => {
    const state = fold(load("child_task"));
    expect(state.children).toEqual([
      { childTaskId: "t-child", callId: "call-1", status: "completed", result: "Three sources found." },
    ]);
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "child", runnable: true });
  });

  it("parent_notified: a child's end is due to its parent until it is reported, then nothing is", () => {
    const events = load("parent_notified");
    expect(fold(events.slice(0, 1)).summary).toMatchObject({ parentReport: "pending", runnable: true });
    expect(fold(events.slice(0, -1)).summary).toMatchObject({
      status: "completed",
      parentReport: "due",
      runnable: true,
    });
    const state = fold(events);
    expect(state.summary).toMatchObject({ status: "completed", runnable: false });
    expect(state.summary.parentReport).toBeUndefined();
    expect(state.result).toBe("Sources: A, B, C.");
  });

  it("compaction: the summary replaces what it covers", () => {
    expect(fold(load("compaction")).transcript).toEqual([
      { role: "user", entryId: "entry-c1", content: "Summary of earlier work: step one is done." },
      { role: "user", entryId: "entry-2", content: "Continue." },
    ]);
  });

  it("wake_scheduled: durable timers, retired by the wake input that carries their id", () => {
    const state = fold(load("wake_scheduled"));
    expect(state.timers).toEqual([
      { wakeId: "wake-1", due: "2026-11-02T09:00:00.000Z", text: "Time to check the deploy.", source: "system" },
    ]);
    expect(state.summary.timers).toEqual({ "wake-1": Date.parse("2026-11-02T09:00:00.000Z") });
    expect(state.inputs.map((i) => [i.inputId, i.carrier])).toEqual([["wake-2", "wake"]]);
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "wake", runnable: true });
  });

  it("external_tools: offered tools; a call to one stays open through the park until its result", () => {
    const events = load("external_tools");
    const parked = fold(events.slice(0, 8));
    expect(parked.externalTools?.map((tool) => tool.name)).toEqual(["pick_color"]);
    expect(parked.openToolCalls.map((call) => call.callId)).toEqual(["call-1"]);
    expect(parked.summary).toMatchObject({ status: "parked", parkedReason: "tool", runnable: false });
    const answered = fold(events);
    expect(answered.openToolCalls).toEqual([]);
    expect(answered.transcript.at(-1)).toMatchObject({ role: "tool", callId: "call-1", status: "ok" });
    expect(answered.summary).toMatchObject({ resumeRequested: true, runnable: true });
  });

  it("task_completed / task_failed / task_cancelled", () => {
    expect(fold(load("task_completed"))).toMatchObject({
      result: "Hi!",
      summary: { status: "completed", runnable: false },
    });
    expect(fold(load("task_failed"))).toMatchObject({ error: { code: "ModelError" }, summary: { status: "failed" } });
    const cancelled = fold(load("task_cancelled"));
    expect(cancelled.summary.status).toBe("cancelled");
    expect(cancelled.transcript.at(-1)).toMatchObject({ role: "tool", callId: "call-1", status: "interrupted" });
  });
});

// The v 2 form of task_created (settings recorded) and a structured-output run with a correction.
describe("v2 fixtures", () => {
  const V2 = new URL("../v2/", DIR);

  it.each(readdirSync(V2).map((f) => f.replace(/\.jsonl$/, "")))("%s validates and is gapless", (name) => {
    const events = load(name, V2);
    expect(() => validateEvents(unstamped(events))).not.toThrow();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("task_created v 2: the settings are folded; the v 1 event folds exactly as before, without them", () => {
    const state = fold(load("task_created", V2));
    expect(state).toMatchObject({ objective: "Summarize README.md", principal: "alice", model: "openai:gpt-5" });
    expect(state.settings).toEqual({
      temperature: 0,
      topP: 0.9,
      maxOutputTokens: 512,
      stopSequences: ["END"],
      seed: 42,
      toolChoice: { type: "tool", toolName: "read_file" },
      providerOptions: { openai: { store: false } },
    });
    const v1 = fold(load("task_created"));
    expect(v1).not.toHaveProperty("settings");
    expect(v1).not.toHaveProperty("outputCorrections");
  });

  it("structured output: the correction reaches the transcript, is counted, and the count ends with the task", () => {
    const events = load("structured_output", V2);
    const beforeAnswer = fold(events.slice(0, 7));
    expect(beforeAnswer.outputCorrections).toBe(1);
    expect(beforeAnswer.transcript.at(-1)).toMatchObject({ role: "user", entryId: "hook:7" });
    const state = fold(events);
    expect(state.settings?.output).toMatchObject({ type: "object", required: ["name", "year"] });
    expect(state).toMatchObject({ result: '{"name":"Ada Lovelace","year":1843}', summary: { status: "completed" } });
    expect(state.outputCorrections).toBeUndefined();
  });
});

// child_task v 2: the budget ledger, a share held from each spawn until the child's first result.
describe("v2 fixtures (the request digest)", () => {
  const V2 = new URL("../../fixtures/events/v2/", import.meta.url);

  it("model_turn v2 carries what the model was sent, as digests, and folds as v1 did", () => {
    const events = load("model_turn", V2);
    const turn = events.at(-1);
    expect(turn).toMatchObject({ type: "model_turn", v: 2, request: { entries: 1 } });
    expect(fold(events).transcript.at(-1)).toEqual({ role: "assistant", text: "Hi!", toolCalls: [] });
    expect(() => validateEvents([{ ...(unstamped(events)[3] as object), v: 1 }])).toThrow(/request/);
  });
});

describe("v2 fixtures (the budget ledger)", () => {
  const V2 = new URL("../../fixtures/events/v2/", import.meta.url);

  it("child_task v 2: spawns hold their shares, a child's first result releases its own, a cancel all", () => {
    const events = load("child_task", V2);
    expect(outstandingReservations(fold(events.slice(0, 3)))).toEqual({ tokens: 0, costUsd: 0, activeMs: 0, turns: 0 });
    expect(outstandingReservations(fold(events.slice(0, 5)))).toEqual({
      tokens: 484,
      costUsd: 0,
      activeMs: 0,
      turns: 8,
    });
    const released = fold(events.slice(0, 6));
    expect(outstandingReservations(released)).toEqual({ tokens: 242, costUsd: 0, activeMs: 0, turns: 4 });
    expect(released.children[0]).toEqual({
      childTaskId: "t-ledger~call-1",
      callId: "call-1",
      status: "completed",
      result: "A done.",
      reserved: { tokens: 242, turns: 4 },
      turns: 1,
    });
    // A second result of the same child releases nothing more (its outcome is the last, as before).
    const repeated = fold(events.slice(0, 7));
    expect(outstandingReservations(repeated)).toEqual(outstandingReservations(released));
    expect(repeated.children[0]).toEqual({ ...released.children[0], status: "failed", result: "late" });
    expect(outstandingReservations(fold(events))).toEqual({ tokens: 0, costUsd: 0, activeMs: 0, turns: 0 });
    // The v 1 spawn holds nothing, as before the ledger.
    expect(outstandingReservations(fold(load("child_task")))).toEqual({ tokens: 0, costUsd: 0, activeMs: 0, turns: 0 });
  });
});

// Version 2 of human_input and user_message: written only when an input carries attachments.
describe("v2 fixtures (attachments)", () => {
  const V2 = new URL("../../fixtures/events/v2/", import.meta.url);
  const loadV2 = (name: string): StoredEvent[] =>
    readFileSync(new URL(`${name}.jsonl`, V2), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as StoredEvent);
  const image = { type: "image", digest: "a".repeat(64), mediaType: "image/png", size: 68 };

  it.each(["human_input", "user_message"])("%s validates", (name) => {
    expect(() => validateEvents(unstamped(loadV2(name)))).not.toThrow();
  });

  it("human_input: pending inputs keep their attachments, in order", () => {
    const state = fold(loadV2("human_input"));
    expect(state.objective).toBe("What is in this picture?");
    expect(state.inputs.map((i) => [i.inputId, i.text, i.attachments])).toEqual([
      ["in-obj", "What is in this picture?", [image]],
      [
        "in-2",
        "",
        [
          { type: "file", digest: "b".repeat(64), mediaType: "application/pdf", size: 1024, filename: "report.pdf" },
          { type: "image", url: "https://example.com/cat.png", mediaType: "image/png" },
        ],
      ],
    ]);
  });

  it("user_message: the transcript entry has the text as content and the parts as sent", () => {
    const state = fold(loadV2("user_message"));
    const text = '[from "alice"]\nWhat is in this picture?';
    expect(state.transcript).toEqual([
      { role: "user", entryId: "entry:in-obj", content: text, parts: [{ type: "text", text }, image] },
    ]);
    expect(state.inputs).toEqual([]);
  });
});

// A caller's trace context on task_created, human_input and approval_decided (still version 1: a
// reader that predates it loses a link of a trace, never a behaviour, so it need not refuse).
describe("trace-context fixtures", () => {
  const TRACE = new URL("../../fixtures/events/trace-context/", import.meta.url);
  const events = load("caller-trace", TRACE);

  it("validates and is gapless", () => {
    expect(() => validateEvents(unstamped(events))).not.toThrow();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("folds exactly as the same log without the trace contexts", () => {
    const stripped = events.map((event) => {
      const { traceContext: _trace, ...rest } = event as StoredEvent & { traceContext?: unknown };
      return rest as StoredEvent;
    });
    expect(stripped.some((event, i) => JSON.stringify(event) !== JSON.stringify(events[i]))).toBe(true);
    expect(fold(events)).toEqual(fold(stripped));
    expect(fold(events).summary).toMatchObject({ status: "parked" });
  });
});

// What a tool threw, on its tool_result (still version 1: a reader that predates it loses a
// diagnostic, never a behaviour; the model's transcript holds the content alone).
describe("tool-error fixtures", () => {
  const TOOL_ERROR = new URL("../../fixtures/events/tool-error/", import.meta.url);
  const events = load("tool-threw", TOOL_ERROR);

  it("validates and is gapless", () => {
    expect(() => validateEvents(unstamped(events))).not.toThrow();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("folds exactly as the same log without the error; the transcript carries only the content", () => {
    const stripped = events.map((event) => {
      const { error: _error, ...rest } = event as StoredEvent & { error?: unknown };
      return (event.type === "tool_result" ? rest : event) as StoredEvent;
    });
    expect(stripped.some((event, i) => JSON.stringify(event) !== JSON.stringify(events[i]))).toBe(true);
    const state = fold(events);
    expect(state).toEqual(fold(stripped));
    expect(JSON.stringify(state.transcript)).not.toContain("TypeError");
    expect(JSON.stringify(state.transcript)).toContain("Error: Cannot read properties of undefined (reading 'temp')");
    expect(state.summary).toMatchObject({ status: "completed" });
  });
});

// Version 2 of approval_requested: written only when the provenance policy held the call.
describe("v2 fixtures (provenance)", () => {
  const V2 = new URL("../../fixtures/events/v2/", import.meta.url);

  it("approval_requested v 2: the held call keeps why; each entry's spans are derived from the log", () => {
    const events = load("approval_requested", V2);
    expect(() => validateEvents(unstamped(events))).not.toThrow();
    const state = fold(events);
    expect(state.approvals[0]?.provenance).toMatchObject({
      classification: "tainted",
      effects: "external",
      rule: "approve",
      spans: [{ seq: 10, lane: "external", tool: "fetch_page", argument: "/to", match: "email" }],
    });
    expect(state.applying).toBeUndefined();
    const [entry, , result] = state.transcript.map((_, i) => provenanceAt(state, i));
    // Only the entry of inputs is recorded; a tool result's follows from the result itself.
    expect(Object.keys(state.inputProvenance ?? {})).toEqual(["entry:in-obj"]);
    const content = state.transcript[0]?.role === "user" ? state.transcript[0].content : "";
    expect(entry?.spans.map((s) => [s.lane, s.inputId, s.actor?.verified])).toEqual([
      ["user", "in-obj", true],
      ["external", "in-ext", false],
    ]);
    // The external input's span is its whole fence, header included.
    const external = entry?.spans[1];
    expect(content.slice(external?.start, external?.end)).toMatch(
      /^\n\n<untrusted-8899aabbccddeeff[\s\S]*<\/untrusted-8899aabbccddeeff>$/,
    );
    expect(result).toMatchObject({
      origin: "tool",
      spans: [{ lane: "external", tool: "fetch_page", untrustedTool: true }],
    });
  });

  it("v 1 logs fold with provenance too: a fenced tool result is an untrusted tool's, an approval has none", () => {
    const results = fold(load("tool_result"));
    expect(
      results.transcript
        .map((_, i) => provenanceAt(results, i))
        .filter((p) => p.origin === "tool")
        .map((p) => p.spans[0]?.untrustedTool),
    ).toEqual([true, undefined]);
    expect(fold(load("approval_requested")).approvals[0]).not.toHaveProperty("provenance");
    const compacted = fold(load("compaction"));
    const summary = compacted.transcript[0];
    expect(summary?.role === "user" && compacted.inputProvenance?.[summary.entryId]?.origin).toBe("summary");
  });
});

describe("v3 fixtures (provenance across delegation, egress)", () => {
  const V3 = new URL("../../fixtures/events/v3/", import.meta.url);

  it.each(readdirSync(V3).map((f) => f.replace(/\.jsonl$/, "")))("%s validates and is gapless", (name) => {
    const events = load(name, V3);
    expect(() => validateEvents(unstamped(events))).not.toThrow();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("child_task v 3: the child's answer is untrusted, its mark points into the child's log", () => {
    const state = fold(load("child_task", V3));
    expect(state.children).toEqual([
      expect.objectContaining({ childTaskId: "t-launder~call-1", status: "completed", untrusted: [5] }),
    ]);
    const index = state.transcript.findIndex((e) => e.role === "tool");
    expect(provenanceAt(state, index).spans[0]).toMatchObject({
      lane: "external",
      tool: "delegate",
      untrustedTool: true,
    });
    expect(state.approvals[0]?.provenance?.spans[0]).toMatchObject({ seq: 6, tool: "delegate" });
  });

  it("approval_requested v 3: an egress hold keeps the destinations it names", () => {
    const state = fold(load("approval_requested", V3));
    expect(state.approvals[0]?.provenance).toMatchObject({
      classification: "tainted",
      effects: "none",
      egress: { destinations: ["evil.example"] },
    });
    expect(state.summary).toMatchObject({ status: "parked", parkedReason: "approval" });
  });

  it("the versions are held to their fields", () => {
    const [, , , , result] = load("child_task", V3);
    const { taskId: _t, seq: _s, at: _a, ...event } = result as StoredEvent;
    expect(taskEventSchema.safeParse({ ...event, v: 2 }).success).toBe(false);
    const { untrusted: _mark, ...unmarked } = event as { untrusted?: number[] };
    expect(taskEventSchema.safeParse({ ...unmarked, v: 1 }).success).toBe(true);
    expect(taskEventSchema.safeParse({ ...event, phase: "spawned" }).success).toBe(false);
    const [, , , , , , held] = load("approval_requested", V3);
    const { taskId: _u, seq: _q, at: _b, ...request } = held as StoredEvent;
    expect(taskEventSchema.safeParse({ ...request, v: 2 }).success).toBe(false);
  });
});
