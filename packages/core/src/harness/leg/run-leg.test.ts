import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { StreamEvent } from "../../protocol/stream-event.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { HarnessOptions } from "../agent.ts";
import { withRetry } from "../model/retry.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { runLeg } from "./run-leg.ts";

const echo = defineTool({
  name: "echo",
  description: "Echo the text back",
  inputSchema: z.object({ text: z.string() }),
  readOnly: true,
  idempotent: true,
  execute: ({ text }) => `echo: ${text}`,
});

function types(events: StoredEvent[]): string[] {
  return events.map((e) => (e.type === "human_input" ? `human_input:${e.delivery}` : e.type));
}

describe("runLeg", () => {
  it("runs a task to completion: objective, model turn, tool call, final answer", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([
      { text: "Let me echo.", toolCalls: [{ name: "echo", input: { text: "hi" } }] },
      { text: "Done: hi" },
    ]);
    const options: HarnessOptions = { store, agent: { model, tools: [echo] } };
    const taskId = await startTask(store, { objective: "Echo hi" });
    const outcome = await runLeg(options, taskId);
    expect(outcome).toMatchObject({ taskId, status: "completed", result: "Done: hi" });
    model.assertConsumed();
    const events = await store.read(taskId);
    expect(types(events)).toEqual([
      "task_created",
      "human_input:received",
      "leg_started",
      "human_input:applied",
      "user_message",
      "model_turn",
      "tool_call_started",
      "tool_result",
      "model_turn",
      "task_completed",
      "leg_ended",
    ]);
    // The single-user host's objective reaches the model byte-identical.
    expect(model.requests[0]?.transcript).toEqual([{ role: "user", entryId: expect.any(String), content: "Echo hi" }]);
    expect(model.requests[1]?.transcript.at(-1)).toEqual({
      role: "tool",
      callId: "call-1-1",
      name: "echo",
      status: "ok",
      content: "echo: hi",
    });
    expect(model.requests[0]?.tools).toEqual([
      {
        name: "echo",
        description: "Echo the text back",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
    ]);
    const record = await store.getTask(taskId);
    expect(record.lease).toBeUndefined();
    expect(record.summary).toMatchObject({
      status: "completed",
      sessionSeq: 2,
      usage: { inputTokens: 20, outputTokens: 10 },
    });
  });

  it("emit sees every event, and a sink that throws cannot break the leg", async () => {
    const seen: StreamEvent[] = [];
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Say hello" });
    const outcome = await runLeg(
      {
        store,
        agent: { model: new ScriptedModel([{ text: "hello" }]) },
        emit: (event) => {
          seen.push(event);
          throw new Error("observer bug");
        },
      },
      taskId,
    );
    const events = await store.read(taskId);
    expect(outcome.status).toBe("completed");
    expect(seen.filter((e) => "seq" in e).map((e) => e.type)).toEqual(events.slice(2).map((e) => e.type));
    expect(seen.some((e) => e.type === "text_delta")).toBe(true);
    expect(fold(events).transcript.length).toBe(2);
  });

  it("returns an error result, never calling execute, for input that fails the schema or an unknown tool", async () => {
    const store = new MemoryStore();
    let executed = 0;
    const strict = defineTool({
      name: "strict",
      description: "needs a number",
      inputSchema: z.object({ n: z.number() }),
      execute: () => {
        executed++;
        return "ran";
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "strict", input: { n: "one" } },
          { name: "nope", input: {} },
          { name: "strict", input: {}, rawInput: "{bad json" },
        ],
      },
      { text: "ok" },
    ]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model, tools: [strict] } }, taskId);
    expect(executed).toBe(0);
    const results = (await store.read(taskId)).filter((e) => e.type === "tool_result");
    expect(results.map((e) => e.type === "tool_result" && [e.status, e.content])).toEqual([
      ["error", "Invalid input for strict: n: Invalid input: expected number, received string"],
      ["error", 'Unknown tool "nope". Available tools: strict.'],
      ["error", "Invalid input for strict: Invalid input: expected object, received string"],
    ]);
  });

  it("fails the task with a clear error when the model fails, and when the script runs out", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    const model = new ScriptedModel([{ error: { message: "invalid x-api-key", code: "auth", status: 401 } }]);
    const outcome = await runLeg({ store, agent: { model } }, taskId);
    expect(outcome).toMatchObject({
      status: "failed",
      error: { code: "ModelError", message: "invalid x-api-key (auth, HTTP 401)" },
    });

    const second = await startTask(store, { objective: "y" });
    const empty = new ScriptedModel([{ toolCalls: [{ name: "echo", input: { text: "a" } }] }]);
    const out = await runLeg({ store, agent: { model: empty, tools: [echo] } }, second);
    expect(out.status).toBe("failed");
    expect(out.error?.message).toMatch(/the script has 1 turn\(s\) and turn 2 was requested/);
    expect(() => empty.assertConsumed()).toThrow(/called 1 time\(s\) more/);
  });

  it("truncates long results with a note and fences untrusted output", async () => {
    const store = new MemoryStore();
    const big = defineTool({
      name: "fetch_page",
      description: "fetch",
      inputSchema: z.object({}),
      untrustedOutput: true,
      maxOutputChars: 10,
      execute: () => "0123456789ABCDEF",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "fetch_page", input: {} }] }, { text: "ok" }]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model, tools: [big] }, randomBytes: (n) => new Uint8Array(n) }, taskId);
    const result = (await store.read(taskId)).find((e) => e.type === "tool_result");
    expect(result).toMatchObject({
      truncated: true,
      content:
        '<untrusted-0000000000000000 kind="tool_output" from="fetch_page">\n0123456789\n[truncated: 6 more characters not shown]\n</untrusted-0000000000000000>',
    });
  });

  it("runs read-only calls of a turn concurrently and the others in order", async () => {
    const store = new MemoryStore();
    const log: string[] = [];
    // A read-only call ends only once both read-only calls have started: they can only finish if
    // they run together. Any call yields a macrotask, so calls run together would interleave.
    let readOnlyStarted = 0;
    let bothStarted: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    const slow = (name: string, readOnly: boolean) =>
      defineTool({
        name,
        description: name,
        inputSchema: z.object({ id: z.string() }),
        readOnly,
        execute: async ({ id }) => {
          log.push(`start ${id}`);
          if (readOnly && ++readOnlyStarted === 2) bothStarted();
          await new Promise((r) => setImmediate(r));
          if (readOnly) await gate;
          log.push(`end ${id}`);
          return id;
        },
      });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "r", input: { id: "r1" } },
          { name: "r", input: { id: "r2" } },
          { name: "w", input: { id: "w1" } },
          { name: "w", input: { id: "w2" } },
        ],
      },
      { text: "ok" },
    ]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model, tools: [slow("r", true), slow("w", false)] } }, taskId);
    expect(log).toEqual(["start r1", "start r2", "end r1", "end r2", "start w1", "end w1", "start w2", "end w2"]);
    expect(
      fold(await store.read(taskId))
        .transcript.filter((e) => e.role === "tool")
        .map((e) => e.role === "tool" && e.content),
    ).toEqual(["r1", "r2", "w1", "w2"]);
  });

  it("times a tool out through its signal", async () => {
    const store = new MemoryStore();
    let sawAbort = false;
    const hang = defineTool({
      name: "hang",
      description: "never returns",
      inputSchema: z.object({}),
      timeoutMs: 30,
      execute: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("aborted"));
          });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "hang", input: {} }] }, { text: "ok" }]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model, tools: [hang] } }, taskId);
    expect(sawAbort).toBe(true);
    expect((await store.read(taskId)).find((e) => e.type === "tool_result")).toMatchObject({
      status: "error",
      content: "The tool hang timed out after 30 ms.",
    });
  });

  it("does nothing for a task that has nothing to do", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "done" }]);
    const taskId = await startTask(store, { objective: "x" });
    await runLeg({ store, agent: { model } }, taskId);
    const before = (await store.getTask(taskId)).lastSeq;
    expect(await runLeg({ store, agent: { model } }, taskId)).toEqual({ taskId, status: "completed", result: "done" });
    expect((await store.getTask(taskId)).lastSeq).toBe(before);
  });

  it("records every model retry as an engine note, then goes on", async () => {
    const store = new MemoryStore();
    const flaky = new ScriptedModel([
      { error: { message: "rate limited", code: "rate_limited", isRetryable: true, status: 429, retryAfterMs: 1200 } },
      { error: { message: "bad gateway", code: "server_error", isRetryable: true, status: 502 } },
      { text: "third time lucky" },
    ]);
    const model = withRetry(flaky, { sleep: async () => {}, random: () => 0.5 });
    const taskId = await startTask(store, { objective: "x" });
    expect(await runLeg({ store, agent: { model } }, taskId)).toMatchObject({
      status: "completed",
      result: "third time lucky",
    });
    const notes = (await store.read(taskId)).filter((e) => e.type === "engine_note");
    expect(notes.map((e) => e.type === "engine_note" && [e.kind, e.data])).toEqual([
      ["model_retry", { attempt: 1, delayMs: 1200, code: "rate_limited", status: 429 }],
      ["model_retry", { attempt: 2, delayMs: 500, code: "server_error", status: 502 }],
    ]);
    flaky.assertConsumed();
  });
});
