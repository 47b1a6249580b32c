// A caller's W3C trace context is recorded on the event its request causes (task_created,
// human_input, approval_decided), and a running tool call gets its span's traceparent from the
// host (HarnessOptions.traceparentOf) with the seq of its tool_call_started; a failing host gives none.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { ToolContext } from "../../ports/tool.ts";
import { InvalidInputError } from "../../protocol/errors.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { ToolCallRef } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { decideApproval } from "../tools/approvals.ts";
import { defineTool } from "../tools/define-tool.ts";
import { sendInput } from "./send-input.ts";
import { startTask } from "./start-task.ts";

const caller = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "congo=t61" };
const steer = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
const decider = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-00" };
const actor = { id: "alice", verified: true };

describe("a caller's trace context", () => {
  it("is recorded on task_created, a steer's human_input and approval_decided", async () => {
    const store = new MemoryStore();
    const remove = defineTool({
      name: "delete_file",
      description: "Delete a file",
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: () => "deleted",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "delete_file", input: { path: "a" } }] }, { text: "ok" }], {
      mode: "by-transcript",
    });
    const taskId = await startTask(store, { objective: "Clean", principal: "alice", traceContext: caller });
    await runLeg({ store, agent: { model, tools: [remove] } }, taskId);
    await sendInput(store, taskId, { text: "Keep the newest", actor, traceContext: steer });
    const request = (await store.read(taskId)).find((event) => event.type === "approval_requested");
    if (request?.type !== "approval_requested") throw new Error("no approval requested");
    await decideApproval(store, taskId, {
      callId: request.callId,
      digest: request.digest,
      decision: "approve",
      actor,
      principal: "alice",
      traceContext: decider,
    });
    const events = await store.read(taskId);
    const created = events[0];
    expect(created?.type === "task_created" && created.traceContext).toEqual(caller);
    // Still version 1: an old reader drops a link of a trace, never a behaviour.
    expect(created?.v).toBe(1);
    const inputs = events.filter((event) => event.type === "human_input" && event.traceContext !== undefined);
    expect(inputs.map((event) => event.type === "human_input" && [event.carrier, event.traceContext])).toEqual([
      ["steer", steer],
    ]);
    const decided = events.find((event) => event.type === "approval_decided");
    expect(decided?.type === "approval_decided" && decided.traceContext).toEqual(decider);
    // The objective's own input records none: task_created holds the start's.
    expect(events.filter((event) => "traceContext" in event)).toHaveLength(3);
  });

  it("is refused when malformed before anything is written", async () => {
    const store = new MemoryStore();
    await expect(startTask(store, { objective: "x", traceContext: { traceparent: "00-zz" } })).rejects.toThrow(
      InvalidInputError,
    );
    const taskId = await startTask(store, { objective: "x" });
    await expect(
      sendInput(store, taskId, {
        text: "y",
        traceContext: { traceparent: `00-${"0".repeat(32)}-${"1".repeat(16)}-01` },
      }),
    ).rejects.toThrow();
    expect(await store.read(taskId)).toHaveLength(2);
  });
});

describe("ToolContext.traceparent", () => {
  function world(traceparentOf?: (call: ToolCallRef) => string | undefined | Promise<string | undefined>) {
    const store = new MemoryStore();
    const seen: Array<string | undefined> = [];
    const asked: ToolCallRef[] = [];
    const remote = defineTool({
      name: "call_remote",
      description: "Call a remote agent",
      inputSchema: z.object({}),
      execute: (_input, ctx: ToolContext) => {
        seen.push(ctx.traceparent);
        return "done";
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "call_remote", input: {} }] }, { text: "ok" }], {
      mode: "by-transcript",
    });
    const hook =
      traceparentOf === undefined
        ? {}
        : {
            traceparentOf: (call: ToolCallRef) => {
              asked.push(call);
              return traceparentOf(call);
            },
          };
    const run = async () => {
      const taskId = await startTask(store, { objective: "Call it" });
      await runLeg({ store, agent: { model, tools: [remote] }, ...hook }, taskId);
      return taskId;
    };
    return { store, seen, asked, run };
  }

  it("is what the host names for the call's tool_call_started", async () => {
    const { store, seen, asked, run } = world(
      async (call) => `00-${"a".repeat(32)}-${String(call.seq).padStart(16, "0")}-01`,
    );
    const taskId = await run();
    const started = (await store.read(taskId)).find((event) => event.type === "tool_call_started");
    expect(asked).toEqual([
      {
        taskId,
        callId: started?.type === "tool_call_started" ? started.callId : "",
        name: "call_remote",
        seq: started?.seq,
      },
    ]);
    expect(seen).toEqual([`00-${"a".repeat(32)}-${String(started?.seq).padStart(16, "0")}-01`]);
  });

  it("is absent without the host's, and when the host's throws or rejects (the call runs all the same)", async () => {
    for (const make of [
      undefined,
      () => {
        throw new Error("tracer down");
      },
      () => Promise.reject(new Error("tracer down")),
      () => undefined,
    ]) {
      const { seen, run } = world(make);
      await run();
      expect(seen).toEqual([undefined]);
    }
  });
});
