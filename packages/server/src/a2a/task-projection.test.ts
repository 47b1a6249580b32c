/**
 * The mapping of stored events to A2A, line by line (the table in docs/guide/a2a.md): the lines a
 * socket test does not reach cheaply (failures, each kind of park, cancel with a reason,
 * usage) are checked here on hand-written logs.
 */
import { TaskState } from "@a2a-js/sdk";
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { endsStream, project, TaskProjection } from "./task-projection.ts";

const usage = { inputTokens: 3, outputTokens: 2 };

function log(...events: TaskEvent[]): StoredEvent[] {
  return events.map((event, index) => ({
    ...event,
    taskId: "t1",
    seq: index + 1,
    at: `2026-12-01T00:00:0${index}.000Z`,
  })) as StoredEvent[];
}

const created: TaskEvent = {
  type: "task_created",
  v: 1,
  objective: "Do it",
  principal: "p",
  agent: "default",
  metadata: { "sema/contextId": "ctx-1", "sema/messageId": "client-m1" },
};
const input: TaskEvent = {
  type: "human_input",
  v: 1,
  inputId: "i1",
  carrier: "steer",
  source: "user",
  delivery: "received",
  sessionSeq: 0,
  text: "Do it",
  actor: { id: "dana", verified: true },
};
const started: TaskEvent = { type: "leg_started", v: 1, legId: "l1", trigger: "start" };
const turn = (text: string): TaskEvent => ({
  type: "model_turn",
  v: 1,
  legId: "l1",
  sessionSeq: 1,
  text,
  toolCalls: [],
  usage,
  finishReason: "stop",
});

function stateAfter(events: StoredEvent[]) {
  const projection = project("t1", events);
  const snapshot = projection.snapshot();
  return { projection, snapshot, state: snapshot.status?.state, text: snapshot.status?.message?.parts[0]?.content };
}

describe("TaskProjection: the mapping table", () => {
  it("task_created is the submitted Task in its context; the objective's input is the first message, with the client's id", () => {
    const { snapshot } = stateAfter(log(created, input));
    expect(snapshot).toMatchObject({ id: "t1", contextId: "ctx-1", status: { state: TaskState.TASK_STATE_SUBMITTED } });
    expect(snapshot.history[0]).toMatchObject({
      messageId: "client-m1",
      metadata: { "sema/actor": "dana", "sema/lane": "user" },
    });
  });

  it("a turn's text is an artifact with its usage; the task's usage adds up", () => {
    const { snapshot } = stateAfter(log(created, started, turn("one"), turn("two")));
    expect(snapshot.artifacts.map((a) => a.artifactId)).toEqual(["turn-3", "turn-4"]);
    expect(snapshot.artifacts[0]?.metadata).toEqual({ "sema/usage": usage });
    expect(snapshot.metadata?.["sema/usage"]).toEqual({ inputTokens: 6, outputTokens: 4 });
    expect(stateAfter(log(created, started, turn(""))).snapshot.artifacts).toEqual([]);
  });

  it.each([
    ["parked:input", /waits for your input/],
    ["parked:interrupt", /Interrupted/],
    ["parked:budget", /budget/],
  ] as const)("a leg %s is input-required with a text", (reason, text) => {
    const { state, text: part } = stateAfter(log(created, started, { type: "leg_ended", v: 1, legId: "l1", reason }));
    expect(state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(part?.$case === "text" && part.value).toMatch(text);
  });

  it.each(["parked:shutdown", "parked:crash", "parked:wake", "parked:child", "parked:model"] as const)(
    "a leg %s stays working (a worker resumes it), and sends nothing",
    (reason) => {
      const projection = new TaskProjection("t1");
      for (const event of log(created, started)) projection.apply(event);
      const [ended] = log(created, started, { type: "leg_ended", v: 1, legId: "l1", reason }).slice(2);
      expect(projection.apply(ended as StoredEvent)).toEqual([]);
      expect(projection.state).toBe(TaskState.TASK_STATE_WORKING);
    },
  );

  it("an approval: input-required with { callId, toolName, input, digest }; decided, working again", () => {
    const digest = "a".repeat(64);
    const events = log(
      created,
      started,
      { type: "approval_requested", v: 1, legId: "l1", callId: "c1", name: "write", inputJson: '{"x":1}', digest },
      { type: "leg_ended", v: 1, legId: "l1", reason: "parked:approval" },
      {
        type: "approval_decided",
        v: 1,
        callId: "c1",
        digest,
        decision: "approve",
        actor: { id: "dana", verified: true },
      },
    );
    const parked = stateAfter(events.slice(0, 4));
    expect(parked.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(parked.snapshot.status?.message?.parts[1]?.content).toEqual({
      $case: "data",
      value: { callId: "c1", toolName: "write", input: { x: 1 }, digest },
    });
    expect(stateAfter(events).state).toBe(TaskState.TASK_STATE_WORKING);
  });

  it("completed, failed and canceled end the stream, with the result, the error and the reason", () => {
    const done = stateAfter(log(created, started, { type: "task_completed", v: 1, result: "the answer" }));
    expect(done.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.text).toEqual({ $case: "text", value: "the answer" });
    const failed = stateAfter(
      log(created, started, { type: "task_failed", v: 1, error: { code: "ModelError", message: "the model is down" } }),
    );
    expect(failed.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(failed.text).toEqual({ $case: "text", value: "the model is down" });
    const cancelled = stateAfter(log(created, started, { type: "task_cancelled", v: 1, reason: "not needed" }));
    expect(cancelled.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(cancelled.text).toEqual({ $case: "text", value: "not needed" });
    for (const state of [done, failed, cancelled]) expect(endsStream(state.projection.state)).toBe(true);
    expect(endsStream(TaskState.TASK_STATE_WORKING)).toBe(false);
    expect(endsStream(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe(true);
  });

  describe("a fork or an import (task_forked)", () => {
    const forked = (extra: Partial<Extract<TaskEvent, { type: "task_forked" }>> = {}): TaskEvent => ({
      type: "task_forked",
      v: 1,
      origin: "fork",
      source: { taskId: "t0", seq: 3 },
      ...extra,
    });

    it.each([
      ["inside a leg", [created, input, started, turn("one")]],
      ["before any leg", [created, input]],
      ["an import exported mid-leg", [created, input, started]],
    ] as const)("whose copy ends %s is input-required (parked:forked), not working", (_, copied) => {
      const { state, text, projection } = stateAfter(log(...copied, forked()));
      expect(state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(text?.$case === "text" && text.value).toMatch(/copy of another task/);
      expect(endsStream(projection.state)).toBe(true);
      // It runs on when asked: working again.
      expect(stateAfter(log(...copied, forked(), started)).state).toBe(TaskState.TASK_STATE_WORKING);
    });

    it("with an approval open at the cut, asks for the decision as a parked approval does", () => {
      const digest = "b".repeat(64);
      const { state, snapshot } = stateAfter(
        log(
          created,
          started,
          { type: "approval_requested", v: 1, legId: "l1", callId: "c1", name: "write", inputJson: "{}", digest },
          forked(),
        ),
      );
      expect(state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(snapshot.status?.message?.parts[1]?.content).toMatchObject({ $case: "data", value: { callId: "c1" } });
    });

    it("that waited for children now detached is input-required; a finished copy stays finished", () => {
      const waiting = log(
        created,
        started,
        { type: "leg_ended", v: 1, legId: "l1", reason: "parked:child" },
        forked({ detachedChildren: ["t0~c1"] }),
      );
      expect(stateAfter(waiting).state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const done = log(created, started, { type: "task_completed", v: 1, result: "the answer" }, forked());
      expect(stateAfter(done)).toMatchObject({
        state: TaskState.TASK_STATE_COMPLETED,
        text: { $case: "text", value: "the answer" },
      });
    });
  });

  it("historyLength: all, none, the last N", () => {
    const projection = project("t1", log(created, input, started, turn("one"), turn("two")));
    expect(projection.snapshot().history).toHaveLength(3);
    expect(projection.snapshot(0).history).toEqual([]);
    expect(projection.snapshot(1).history.map((m) => m.messageId)).toEqual(["t1-turn-5"]);
  });
});
