import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { Store } from "../../ports/store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { decideApproval } from "../tools/approvals.ts";
import { defineTool } from "../tools/define-tool.ts";

function writer() {
  const writes: Array<{ path: string; frozen: boolean }> = [];
  const tool = defineTool({
    name: "write_file",
    description: "write",
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    needsApproval: (input) => input.path.startsWith("/"),
    execute: (input) => {
      writes.push({ path: input.path, frozen: Object.isFrozen(input) });
      return `wrote ${input.path}`;
    },
  });
  return { writes, tool };
}

async function run(store: Store, agent: Agent) {
  const taskId = await startTask(store, { objective: "Write it", principal: "acme" });
  const outcome = await runLeg({ store, agent }, taskId);
  return { taskId, outcome, events: await store.read(taskId) };
}

const lastUser = (model: ScriptedModel) => {
  const entry = model.requests
    .at(-1)
    ?.transcript.filter((e) => e.role === "user")
    .at(-1);
  return entry?.role === "user" ? entry.content : undefined;
};

describe("hooks", () => {
  it("beforeTool can deny with a reason (the model is told), allow, or replace the input", async () => {
    const store = new MemoryStore();
    const w = writer();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "write_file", input: { path: "a.txt", content: "x" } },
          { name: "write_file", input: { path: "secrets.env", content: "y" } },
          { name: "write_file", input: { path: "b.txt", content: "z" } },
        ],
      },
      { text: "ok" },
    ]);
    const { events } = await run(store, {
      model,
      tools: [w.tool],
      hooks: {
        beforeTool: ({ call }) => {
          const input = call.input as { path: string; content: string };
          if (input.path.endsWith(".env")) return { action: "deny", reason: "no secrets" };
          if (input.path === "b.txt") return { action: "replace", input: { ...input, path: "out/b.txt" } };
          return undefined;
        },
      },
    });
    expect(w.writes.map((x) => x.path)).toEqual(["a.txt", "out/b.txt"]);
    const results = events
      .filter((e) => e.type === "tool_result")
      .map((e) => e.type === "tool_result" && [e.status, e.content]);
    expect(results).toEqual([
      ["denied", "The call was denied by a hook. Reason: no secrets"],
      ["ok", "wrote a.txt"],
      ["ok", "wrote out/b.txt"],
    ]);
    // The replaced input is recorded on the call's start, so a replay knows what really ran.
    expect(events.find((e) => e.type === "tool_call_started" && e.callId === "call-1-3")).toMatchObject({
      input: { path: "out/b.txt", content: "z" },
    });
  });

  it("a replaced input goes through approval again when the tool needs it", async () => {
    const store = new MemoryStore();
    const w = writer();
    const model = new ScriptedModel(
      [{ toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "x" } }] }, { text: "ok" }],
      { mode: "by-transcript" },
    );
    const agent: Agent = {
      model,
      tools: [w.tool],
      hooks: {
        beforeTool: ({ call }) => ({ action: "replace", input: { ...(call.input as object), path: "/etc/notes.txt" } }),
      },
    };
    const { taskId, outcome, events } = await run(store, agent);
    expect(outcome.parkedReason).toBe("approval");
    const request = events.find((e) => e.type === "approval_requested");
    expect(request).toMatchObject({ inputJson: '{"content":"x","path":"/etc/notes.txt"}' });
    await decideApproval(store, taskId, {
      callId: "call-1-1",
      digest: request?.type === "approval_requested" ? request.digest : "",
      decision: "approve",
      actor: { id: "alice", verified: true },
      principal: "acme",
    });
    await runLeg({ store, agent }, taskId);
    expect(w.writes).toEqual([{ path: "/etc/notes.txt", frozen: true }]);
  });

  it("beforeTool can require approval for a call the tool would let through", async () => {
    const store = new MemoryStore();
    const w = writer();
    const model = new ScriptedModel([{ toolCalls: [{ name: "write_file", input: { path: "x.txt", content: "x" } }] }]);
    const { outcome } = await run(store, {
      model,
      tools: [w.tool],
      hooks: { beforeTool: () => ({ action: "require_approval" }) },
    });
    expect(outcome.parkedReason).toBe("approval");
    expect(w.writes).toEqual([]);
  });

  it("afterTool can replace the output the model sees", async () => {
    const store = new MemoryStore();
    const w = writer();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_file", input: { path: "x.txt", content: "x" } }] },
      { text: "ok" },
    ]);
    await run(store, {
      model,
      tools: [w.tool],
      hooks: { afterTool: ({ result }) => ({ content: `${result.content} (checked)` }) },
    });
    expect(model.requests[1]?.transcript.at(-1)).toMatchObject({ role: "tool", content: "wrote x.txt (checked)" });
  });

  it("beforeModel and afterModel feedback reach the model framed, and are recorded", async () => {
    const store = new MemoryStore();
    const w = writer();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_file", input: { path: "x.txt", content: "x" } }] },
      { text: "ok" },
    ]);
    let calls = 0;
    const { events } = await run(store, {
      model,
      tools: [w.tool],
      hooks: {
        beforeModel: () => (calls++ === 0 ? { feedback: "Today is Monday." } : undefined),
        afterModel: ({ toolCalls }) => (toolCalls.length > 0 ? { feedback: "Remember to run the tests." } : undefined),
      },
    });
    expect(model.requests[0]?.transcript.at(-1)).toMatchObject({
      role: "user",
      content: "<system-reminder>\nToday is Monday.\n</system-reminder>",
    });
    // afterModel feedback waits for the turn's results, then comes before the next call.
    expect(model.requests[1]?.transcript.slice(-2).map((e) => e.role)).toEqual(["tool", "user"]);
    expect(lastUser(model)).toBe("<system-reminder>\nRemember to run the tests.\n</system-reminder>");
    expect(events.filter((e) => e.type === "hook_feedback").map((e) => e.type === "hook_feedback" && e.hook)).toEqual([
      "beforeModel",
      "afterModel",
    ]);
  });

  it("onStop can send the agent back to work, a bounded number of times", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "done?" }, { text: "done, with tests" }]);
    let stops = 0;
    const { outcome } = await run(store, {
      model,
      hooks: {
        onStop: ({ text }) =>
          stops++ === 0 ? { continue: true, feedback: `You said "${text}" but the tests did not run.` } : undefined,
      },
    });
    expect(outcome).toMatchObject({ status: "completed", result: "done, with tests" });
    expect(lastUser(model)).toBe('<system-reminder>\nYou said "done?" but the tests did not run.\n</system-reminder>');

    const stubborn = new ScriptedModel(Array.from({ length: 4 }, () => ({ text: "done" })));
    const bounded = await run(new MemoryStore(), {
      model: stubborn,
      hooks: { onStop: () => ({ continue: true, feedback: "again" }) },
      hookSettings: { maxStopContinuations: 3 },
    });
    expect(bounded.outcome.status).toBe("completed");
    stubborn.assertConsumed();
  });

  it("a hook that throws or times out is a recorded failure, open or closed as configured", async () => {
    const w = writer();
    const throwing = { beforeTool: () => Promise.reject(new Error("policy service down")) };
    const model = () =>
      new ScriptedModel([
        { toolCalls: [{ name: "write_file", input: { path: "x.txt", content: "x" } }] },
        { text: "ok" },
      ]);
    // beforeTool fails closed by default: the call is denied.
    const closed = await run(new MemoryStore(), { model: model(), tools: [w.tool], hooks: throwing });
    expect(w.writes).toEqual([]);
    expect(closed.events.find((e) => e.type === "engine_note")).toMatchObject({
      kind: "hook_failed",
      data: { hook: "beforeTool", mode: "closed", message: "policy service down" },
    });
    expect(closed.events.find((e) => e.type === "tool_result")).toMatchObject({ status: "denied" });
    // Configured open, the call goes through.
    await run(new MemoryStore(), {
      model: model(),
      tools: [w.tool],
      hooks: throwing,
      hookSettings: { failure: { beforeTool: "open" } },
    });
    expect(w.writes.map((x) => x.path)).toEqual(["x.txt"]);
    // A timed-out onStop configured closed fails the task.
    const slow = await run(new MemoryStore(), {
      model: new ScriptedModel([{ text: "done" }]),
      hooks: { onStop: () => new Promise(() => {}) },
      hookSettings: { timeoutMs: 20, failure: { onStop: "closed" } },
    });
    expect(slow.outcome).toMatchObject({
      status: "failed",
      error: { code: "HookFailed", message: "the onStop hook failed: timed out after 20 ms" },
    });
  });
});
