import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../adapters/memory-store.ts";
import { cancel } from "../harness/tasks/control.ts";
import { loadTaskState } from "../harness/tasks/task-overview.ts";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { ModelRequest } from "../ports/model.ts";
import { isSemaError } from "../protocol/errors.ts";
import { ScriptedModel, type ScriptedTurn } from "../testing/scripted-model.ts";
import { createAgent } from "./create-agent.ts";

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const ann = { id: "ann", verified: true };

/** A tool that needs a person's approval, and counts its runs. */
function guarded() {
  const runs: string[] = [];
  const tool = defineTool({
    name: "deploy",
    description: "Deploy a service",
    inputSchema: z.object({ service: z.string() }),
    needsApproval: true,
    execute: ({ service }) => {
      runs.push(service);
      return `deployed ${service}`;
    },
  });
  return { tool, runs };
}

const userTexts = (request: ModelRequest | undefined) =>
  (request?.transcript ?? []).flatMap((e) => (e.role === "user" ? [e.content] : []));

describe("createAgent: run", () => {
  it("runs a one-tool agent to its answer: status, text, usage, steps with results", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add", input: { a: 2, b: 3 } }], usage: { inputTokens: 10, outputTokens: 4 } },
      { text: "2 + 3 = 5", usage: { inputTokens: 20, outputTokens: 6 } },
    ]);
    const agent = createAgent({ model, tools: [add] });
    const result = await agent.run("What is 2 + 3?");
    expect(result).toMatchObject({
      status: "completed",
      text: "2 + 3 = 5",
      output: undefined,
      usage: { inputTokens: 30, outputTokens: 10 },
    });
    expect(result.parked).toBeUndefined();
    expect(result.error).toBeUndefined();
    expect(result.steps).toEqual([
      {
        text: "",
        toolCalls: [{ callId: "call-1-1", name: "add", input: { a: 2, b: 3 }, result: { status: "ok", content: "5" } }],
      },
      { text: "2 + 3 = 5", toolCalls: [] },
    ]);
    // Everything is in the store the handle is bound to (a MemoryStore by default).
    expect((await agent.store.getTask(result.taskId)).summary.status).toBe("completed");
    model.assertConsumed();
  });

  it("records the agent's name, the model id, the actor and the principal on task_created", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "ok" }], { id: "script:named" });
    const agent = createAgent({ name: "helper", model, store });
    const { taskId } = await agent.run("Hi", { principal: "acme", actor: ann, metadata: { ticket: 7 } });
    const [created] = await store.read(taskId, { limit: 1 });
    expect(created).toMatchObject({
      type: "task_created",
      agent: "helper",
      model: "script:named",
      principal: "acme",
      actor: ann,
      metadata: { ticket: 7 },
    });
  });

  it("validates the final answer with the output schema (the definition's, or the run's)", async () => {
    const answer = z.object({ sum: z.number() });
    const ok = await createAgent({ model: new ScriptedModel([{ text: '{"sum":5}' }]), output: answer }).run("Add");
    expect(ok.output).toEqual({ sum: 5 });
    // A wrong answer goes back to the model as a correction; still wrong after the bound, the task
    // fails with OutputInvalid naming the path.
    const stubborn = new ScriptedModel([{ text: '{"total":5}' }, { text: '{"total":5}' }, { text: '{"total":5}' }]);
    const wrong = await createAgent({ model: stubborn, output: answer }).run("Add");
    expect(wrong).toMatchObject({ status: "failed", output: undefined });
    expect(isSemaError(wrong.error, "OutputInvalid")).toBe(true);
    expect(wrong.error?.message).toContain("$.sum");
    // The run's schema is recorded on the task and wins over the definition's.
    const agent = createAgent({ model: new ScriptedModel([{ text: '{"total":5}' }]), output: answer });
    const overridden = await agent.run("Add", { output: z.object({ total: z.number() }) });
    expect(overridden).toMatchObject({ status: "completed", output: { total: 5 } });
  });

  it("records a run's request settings on task_created; they win over the definition's", async () => {
    const store = new MemoryStore();
    const model = new ScriptedModel([{ text: "ok" }]);
    const agent = createAgent({ model, store, temperature: 0.9, maxOutputTokens: 300 });
    const { taskId } = await agent.run("Hi", { temperature: 0.2, seed: 7, toolChoice: "none" });
    const [created] = await store.read(taskId, { limit: 1 });
    expect(created).toMatchObject({
      type: "task_created",
      settings: { temperature: 0.2, seed: 7, toolChoice: "none" },
    });
    expect(model.requests[0]).toMatchObject({ temperature: 0.2, seed: 7, toolChoice: "none", maxOutputTokens: 300 });
  });

  it("checks the definition where it is given: no model, or an unknown key, is a ConfigError from createAgent", () => {
    const store = new MemoryStore();
    expect(() => createAgent({ store } as unknown as Parameters<typeof createAgent>[0])).toThrow(
      /definition\.model is missing/,
    );
    let caught: unknown;
    try {
      createAgent({ model: new ScriptedModel([]), store, modle: 1 } as unknown as Parameters<typeof createAgent>[0]);
    } catch (error) {
      caught = error;
    }
    expect(isSemaError(caught, "ConfigError")).toBe(true);
    expect(String((caught as Error).message)).toContain('"modle"');
  });

  it("takes content parts: the image's bytes reach the model with the text", async () => {
    const model = new ScriptedModel([{ text: "A red dot." }]);
    const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    const result = await createAgent({ model }).run([
      { type: "text", text: "What is in this picture?" },
      { type: "image", data: bytes, mediaType: "image/png" },
    ]);
    expect(result).toMatchObject({ status: "completed", text: "A red dot." });
    const request = model.requests[0];
    expect(userTexts(request)).toEqual(["What is in this picture?"]);
    expect([...(request?.blobs?.values() ?? [])]).toEqual([bytes]);
  });

  it("reports a failed task with its error typed from task_failed", async () => {
    const model = new ScriptedModel([{ error: { message: "bad request", code: "bad_request" } }]);
    const result = await createAgent({ model }).run("Hi");
    expect(result.status).toBe("failed");
    expect(isSemaError(result.error)).toBe(true);
    expect(result.error?.code).toBe("ModelError");
    expect(result.error?.message).toContain("bad request");
  });

  it("an idempotent taskId: a second run does not start a second task, it returns the first", async () => {
    const model = new ScriptedModel([{ text: "first answer" }]);
    const agent = createAgent({ model });
    const first = await agent.run("Hi", { taskId: "task-once" });
    const second = await agent.run("Something else", { taskId: "task-once" });
    expect(second).toEqual(first);
    expect((await agent.store.read("task-once")).filter((e) => e.type === "task_created")).toHaveLength(1);
    model.assertConsumed();
  });

  it("an idempotent taskId continues a task that has work (here: parked by an abort)", async () => {
    const controller = new AbortController();
    const slow = defineTool({
      name: "slow",
      description: "stops when told",
      inputSchema: z.object({}),
      execute: (_input, ctx) => {
        return new Promise<string>((resolve) => {
          ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true });
          controller.abort();
        });
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow", input: {} }] }, { text: "Done." }]);
    const agent = createAgent({ model, tools: [slow] });
    const parked = await agent.run("Go", { taskId: "t-abort", signal: controller.signal });
    // Aborting parks the task, as interrupt does: nothing failed, nothing is lost.
    expect(parked).toMatchObject({ status: "parked", parked: { reason: "interrupt", approvals: [] } });
    expect((await agent.store.getTask("t-abort")).lease).toBeUndefined();
    const resumed = await agent.run("Go", { taskId: "t-abort" });
    expect(resumed).toMatchObject({ status: "completed", text: "Done." });
  });
});

describe("createAgent: a signal aborted before the run", () => {
  it("parks the new task before any model call; continue runs it", async () => {
    const model = new ScriptedModel([{ text: "Hi there." }]);
    const agent = createAgent({ model });
    const parked = await agent.run("Hi", { signal: AbortSignal.abort() });
    expect(parked).toMatchObject({ status: "parked", parked: { reason: "interrupt" } });
    expect(model.calls).toBe(0);
    expect(await agent.continue(parked.taskId)).toMatchObject({ status: "completed", text: "Hi there." });
  });
});

describe("createAgent: send and continue (a conversation is a task that finishes and is continued)", () => {
  it("a completed task: the follow-up is recorded and woken; continue answers it", async () => {
    const model = new ScriptedModel([{ text: "Paris." }, { text: "About 2.1 million." }]);
    const agent = createAgent({ model });
    const first = await agent.run("Capital of France?");
    const sent = await agent.send(first.taskId, "And its population?");
    expect(sent).toEqual({ inputId: expect.any(String), delivery: "parked" });
    const second = await agent.continue(first.taskId);
    expect(second).toMatchObject({ taskId: first.taskId, status: "completed", text: "About 2.1 million." });
    expect(userTexts(model.requests[1])).toEqual(["Capital of France?", "And its population?"]);
    expect(second.steps.map((s) => s.text)).toEqual(["Paris.", "About 2.1 million."]);
  });

  it("a failed task continues too: the follow-up wakes it", async () => {
    const model = new ScriptedModel([
      { error: { message: "bad request", code: "bad_request" } },
      { text: "Fine now." },
    ]);
    const agent = createAgent({ model });
    const failed = await agent.run("Hi");
    expect(failed.status).toBe("failed");
    expect((await agent.send(failed.taskId, "Try again")).delivery).toBe("parked");
    expect(await agent.continue(failed.taskId)).toMatchObject({ status: "completed", text: "Fine now." });
  });

  it("a cancelled task refuses a follow-up (TaskFinished)", async () => {
    const store = new MemoryStore();
    const { tool } = guarded();
    const model = new ScriptedModel([{ toolCalls: [{ name: "deploy", input: { service: "api" } }] }]);
    const agent = createAgent({ model, store, tools: [tool] });
    const { taskId } = await agent.run("Deploy");
    await cancel(store, taskId);
    await expect(agent.send(taskId, "hello?")).rejects.toMatchObject({ code: "TaskFinished" });
  });

  it("a parked task: the input waits for the next leg, which applies it", async () => {
    const { tool } = guarded();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "deploy", input: { service: "api" } }] },
      { text: "Deployed, and noted." },
    ]);
    const agent = createAgent({ model, tools: [tool] });
    const { taskId } = await agent.run("Deploy the api");
    expect((await agent.send(taskId, "Use the blue pool")).delivery).toBe("parked");
    await agent.approve(taskId, "call-1-1", { actor: ann });
    expect(await agent.continue(taskId)).toMatchObject({ status: "completed", text: "Deployed, and noted." });
    expect(userTexts(model.requests[1]).join("\n")).toContain("Use the blue pool");
  });

  it("a running task: the input is steered into the running leg", async () => {
    const sent: Array<Promise<{ delivery: string }>> = [];
    const agentRef: { send?: (taskId: string, text: string) => Promise<{ delivery: string }> } = {};
    const probe = defineTool({
      name: "probe",
      description: "sends a steer while the leg runs",
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const send = agentRef.send;
        if (send !== undefined) sent.push(send(ctx.taskId, "Also check the logs"));
        await sent[0];
        return "probed";
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "probe", input: {} }] }, { text: "Checked." }]);
    const agent = createAgent({ model, tools: [probe] });
    agentRef.send = (taskId, text) => agent.send(taskId, text);
    const result = await agent.run("Probe");
    expect(await sent[0]).toMatchObject({ delivery: "received" });
    expect(result.status).toBe("completed");
    expect(userTexts(model.requests[1]).join("\n")).toContain("Also check the logs");
  });

  it("continue on a task with nothing to do returns where it stands, running no leg", async () => {
    const model = new ScriptedModel([{ text: "done" }]);
    const agent = createAgent({ model });
    const first = await agent.run("Hi");
    expect(await agent.continue(first.taskId)).toEqual(first);
    model.assertConsumed();
  });
});

describe("createAgent: approvals", () => {
  async function parkedDeploy(turns: ScriptedTurn[] = [{ text: "Done." }]) {
    const { tool, runs } = guarded();
    const model = new ScriptedModel([{ toolCalls: [{ name: "deploy", input: { service: "api" } }] }, ...turns]);
    const agent = createAgent({ model, tools: [tool] });
    const result = await agent.run("Deploy the api");
    return { agent, result, runs, model };
  }

  it("run parks with every pending approval: callId, toolName, input, digest", async () => {
    const { agent, result, runs } = await parkedDeploy();
    expect(result.status).toBe("parked");
    expect(result.parked).toEqual({
      reason: "approval",
      approvals: [
        {
          taskId: result.taskId,
          callId: "call-1-1",
          toolName: "deploy",
          input: { service: "api" },
          digest: expect.any(String),
        },
      ],
    });
    expect(await agent.approvals(result.taskId)).toEqual(result.parked?.approvals);
    expect(runs).toEqual([]);
  });

  it("approve records the decision with the pending digest and does not run the task; continue does", async () => {
    const { agent, result, runs } = await parkedDeploy();
    const digest = result.parked?.approvals[0]?.digest;
    const decision = await agent.approve(result.taskId, "call-1-1", { actor: ann, reason: "looks fine" });
    expect(decision).toEqual({
      callId: "call-1-1",
      digest,
      decision: "approve",
      actor: ann,
      principal: "local",
      reason: "looks fine",
    });
    expect(runs).toEqual([]);
    expect(await agent.approvals(result.taskId)).toEqual([]);
    const done = await agent.continue(result.taskId);
    expect(done).toMatchObject({ status: "completed", text: "Done." });
    expect(runs).toEqual(["api"]);
    // Decided once: a second decision is refused.
    await expect(agent.approve(result.taskId, "call-1-1", { actor: ann })).rejects.toMatchObject({
      code: "ApprovalConflict",
    });
  });

  it("deny: the call never runs and the model is told", async () => {
    const { agent, result, runs, model } = await parkedDeploy([{ text: "Not deployed." }]);
    const decision = await agent.deny(result.taskId, "call-1-1", { actor: ann, reason: "freeze" });
    expect(decision.decision).toBe("deny");
    expect(await agent.continue(result.taskId)).toMatchObject({ status: "completed", text: "Not deployed." });
    expect(runs).toEqual([]);
    const told = model.requests[1]?.transcript.find((e) => e.role === "tool");
    expect(told).toMatchObject({ status: "denied", content: expect.stringContaining("freeze") });
  });

  it("an explicit digest is the strict form: a mismatch is refused and nothing is recorded", async () => {
    const { agent, result } = await parkedDeploy();
    await expect(
      agent.approve(result.taskId, "call-1-1", { actor: ann, digest: "0".repeat(64) }),
    ).rejects.toMatchObject({
      code: "DigestMismatch",
    });
    expect(await agent.approvals(result.taskId)).toHaveLength(1);
    const digest = result.parked?.approvals[0]?.digest ?? "";
    expect((await agent.approve(result.taskId, "call-1-1", { actor: ann, digest })).digest).toBe(digest);
  });

  it("an unknown call, and an unverified actor under the default rule, are refused", async () => {
    const { agent, result } = await parkedDeploy();
    await expect(agent.approve(result.taskId, "call-9-9", { actor: ann })).rejects.toMatchObject({
      code: "ApprovalNotFound",
    });
    await expect(
      agent.approve(result.taskId, "call-1-1", { actor: { id: "mallory", verified: false } }),
    ).rejects.toMatchObject({ code: "Forbidden" });
    const state = await loadTaskState(agent.store, result.taskId);
    expect(state.approvals[0]?.decision).toBeUndefined();
  });

  it("a host rule for who may approve (canApprove) replaces the default", async () => {
    const { tool } = guarded();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "deploy", input: { service: "api" } }] },
      { text: "Done." },
    ]);
    const agent = createAgent({ model, tools: [tool], canApprove: (actor) => actor.id === "ops" });
    const { taskId } = await agent.run("Deploy");
    await expect(agent.approve(taskId, "call-1-1", { actor: ann })).rejects.toMatchObject({ code: "Forbidden" });
    await agent.approve(taskId, "call-1-1", { actor: { id: "ops", verified: false } });
    expect((await agent.continue(taskId)).status).toBe("completed");
  });

  it("a child's pending approval is listed under the parent and decided through it", async () => {
    const { tool, runs } = guarded();
    const model = new ScriptedModel(
      Array.from({ length: 6 }, () => (request: ModelRequest) => {
        const first = request.transcript[0];
        const objective = first?.role === "user" ? first.content : "";
        const turn = request.transcript.filter((e) => e.role === "assistant").length;
        const scripts: Record<string, ScriptedTurn[]> = {
          "Ship it": [{ toolCalls: [{ name: "delegate", input: { objective: "Deploy api" } }] }, { text: "Shipped." }],
          "Deploy api": [{ toolCalls: [{ name: "deploy", input: { service: "api" } }] }, { text: "Deployed." }],
        };
        return scripts[objective]?.[turn] ?? { text: "?" };
      }),
    );
    const agent = createAgent({ model, tools: [tool], delegation: {} });
    const parked = await agent.run("Ship it");
    expect(parked.parked?.reason).toBe("child");
    const [pending] = parked.parked?.approvals ?? [];
    expect(pending).toMatchObject({ toolName: "deploy", input: { service: "api" } });
    expect(pending?.taskId).not.toBe(parked.taskId);
    await agent.approve(parked.taskId, pending?.callId ?? "", { actor: ann });
    expect(await agent.continue(parked.taskId)).toMatchObject({ status: "completed", text: "Shipped." });
    expect(runs).toEqual(["api"]);
  });
});

describe("createAgent: hooks typed by the tools", () => {
  it("beforeTool sees the validated call of one of the agent's tools, and may deny it", async () => {
    const seen: unknown[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add", input: { a: 1, b: "x" } }] },
      { toolCalls: [{ name: "add", input: { a: 1, b: 2 } }] },
      { text: "done" },
    ]);
    const agent = createAgent({
      model,
      tools: [add],
      hooks: {
        beforeTool: ({ call }) => {
          seen.push({ name: call.name, input: call.input });
          return call.input.a + call.input.b > 2 ? { action: "deny", reason: "too big" } : undefined;
        },
        afterTool: ({ call, result }) => ({ content: `${call.name}: ${result.content}` }),
      },
    });
    const result = await agent.run("Add");
    // The call the schema refuses is not shown to the typed hook; it fails as always.
    expect(seen).toEqual([{ name: "add", input: { a: 1, b: 2 } }]);
    expect(result.steps.map((s) => s.toolCalls[0]?.result?.status)).toEqual(["error", "denied", undefined]);
  });
});
