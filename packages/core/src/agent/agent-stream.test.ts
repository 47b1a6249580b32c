import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { ModelRequest } from "../ports/model.ts";
import type { StreamEvent } from "../protocol/stream-event.ts";
import { ScriptedModel, type ScriptedTurn } from "../testing/scripted-model.ts";
import { createAgent } from "./create-agent.ts";

/** Runs until its signal aborts: only the run being stopped ends it. */
const wait = defineTool({
  name: "wait",
  description: "waits to be stopped",
  inputSchema: z.object({}),
  execute: (_input, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true })),
});

describe("createAgent: stream", () => {
  it("streams the run's stored and ephemeral events, then resolves its result", async () => {
    const model = new ScriptedModel([{ text: "Hello world", chunkSize: 4 }]);
    const agent = createAgent({ model });
    const stream = agent.stream("Greet");
    const seen: StreamEvent[] = [];
    for await (const event of stream) seen.push(event);
    const result = await stream.result;
    expect(result).toMatchObject({ status: "completed", text: "Hello world" });
    expect(seen.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.delta : ""))).toEqual([
      "Hell",
      "o wo",
      "rld",
    ]);
    // Every event the run stored reaches the stream once, in order, as stored.
    const log = await agent.store.read(result.taskId);
    const legStart = log.find((e) => e.type === "leg_started")?.seq ?? 0;
    expect(seen.filter((e) => "seq" in e)).toEqual(log.filter((e) => e.seq >= legStart));
  });

  it("textStream gives the text deltas alone", async () => {
    const model = new ScriptedModel([
      { text: "Let me add. ", toolCalls: [{ name: "wait", input: {} }], chunkSize: 3 },
      { text: "Done.", chunkSize: 2 },
    ]);
    const quick = defineTool({ name: "wait", description: "answers", inputSchema: z.object({}), execute: () => "ok" });
    const stream = createAgent({ model, tools: [quick] }).stream("Go");
    let text = "";
    for await (const delta of stream.textStream) text += delta;
    expect(text).toBe("Let me add. Done.");
    expect((await stream.result).status).toBe("completed");
  });

  it("breaking out of the loop parks the task cleanly; continue runs it on", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "wait", input: {} }] }, { text: "Done." }]);
    const agent = createAgent({ model, tools: [wait] });
    const stream = agent.stream("Wait");
    for await (const event of stream) if (event.type === "tool_call_started") break;
    const parked = await stream.result;
    expect(parked).toMatchObject({ status: "parked", parked: { reason: "interrupt" } });
    expect((await agent.store.getTask(parked.taskId)).lease).toBeUndefined();
    expect(await agent.continue(parked.taskId)).toMatchObject({ status: "completed", text: "Done." });
  });

  it("breaking out of textStream parks it too", async () => {
    const model = new ScriptedModel([
      { text: "Thinking... ", toolCalls: [{ name: "wait", input: {} }] },
      { text: "Done." },
    ]);
    const stream = createAgent({ model, tools: [wait] }).stream("Wait");
    for await (const delta of stream.textStream) if (delta.length > 0) break;
    expect(await stream.result).toMatchObject({ status: "parked", parked: { reason: "interrupt" } });
  });

  it("the caller's signal parks a streamed run as well", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ toolCalls: [{ name: "wait", input: {} }] }]);
    const stream = createAgent({ model, tools: [wait] }).stream("Wait", { signal: controller.signal });
    for await (const event of stream) if (event.type === "tool_call_started") controller.abort();
    expect(await stream.result).toMatchObject({ status: "parked", parked: { reason: "interrupt" } });
  });

  it("a leg that throws rejects the result and ends the loop with the error", async () => {
    const model = new ScriptedModel([{ text: "x" }]);
    const agent = createAgent({ model });
    const first = await agent.run("Hi", { taskId: "same" });
    expect(first.status).toBe("completed");
    // The leg throws: the loop over the events and the result both surface it.
    const store = agent.store;
    const broken = createAgent({
      model,
      // The same store, whose reads fail: the leg cannot fold the log.
      store: new Proxy(store, {
        get(target, key) {
          if (key === "read" || key === "latestSnapshot") return () => Promise.reject(new Error("disk gone"));
          const value: unknown = Reflect.get(target, key);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    });
    const stream = broken.stream("Hi", { taskId: "same" });
    await expect(
      (async () => {
        for await (const _event of stream) {
          // nothing arrives before the failure
        }
      })(),
    ).rejects.toThrow("disk gone");
    await expect(stream.result).rejects.toThrow("disk gone");
  });

  it("a run spans several legs: a background child runs here, and its result wakes the task", async () => {
    const model = byObjective({
      Parent: [
        { toolCalls: [{ name: "delegate", input: { objective: "Background job", wait: false } }] },
        { text: "Started it." },
        { text: "Got the background result." },
      ],
      "Background job": [{ text: "Job output 42." }],
    });
    const stream = createAgent({ model, delegation: {} }).stream("Parent");
    const legs: string[] = [];
    for await (const event of stream) if (event.type === "leg_ended") legs.push(event.reason);
    expect(legs).toEqual(["completed", "completed"]);
    const result = await stream.result;
    expect(result).toMatchObject({ status: "completed", text: "Got the background result." });
    // Three parent turns and the child's one, ten input and five output tokens each.
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 20 });
  });

  it("with runChildren: false a background child is left to the workers", async () => {
    const model = byObjective({
      Parent: [
        { toolCalls: [{ name: "delegate", input: { objective: "Background job", wait: false } }] },
        { text: "Started it." },
      ],
    });
    const agent = createAgent({ model, delegation: { runChildren: false } });
    const result = await agent.run("Parent");
    expect(result).toMatchObject({ status: "completed", text: "Started it." });
    expect((await agent.store.listRunnable()).map((r) => r.taskId)).toEqual([`${result.taskId}~call-1-1`]);
  });

  it("continue runs the children a finished task left waiting, and the task on", async () => {
    const model = byObjective({
      Parent: [
        { toolCalls: [{ name: "delegate", input: { objective: "Background job", wait: false } }] },
        { text: "Started it." },
        { text: "Got the background result." },
      ],
      "Background job": [{ text: "Job output 42." }],
    });
    const leaving = createAgent({ model, delegation: { runChildren: false } });
    const first = await leaving.run("Parent");
    // Another handle over the same store, one that runs children, picks the conversation up.
    const running = createAgent({ model, store: leaving.store, delegation: {} });
    expect(await running.continue(first.taskId)).toMatchObject({
      status: "completed",
      text: "Got the background result.",
    });
    expect(await leaving.store.listRunnable()).toEqual([]);
  });
});

/** One model for parent and children: each task's script is chosen by its objective. */
function byObjective(scripts: Record<string, ScriptedTurn[]>): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: 20 }, () => (request: ModelRequest) => {
      const first = request.transcript[0];
      const objective = first?.role === "user" ? first.content : "";
      const turn = request.transcript.filter((e) => e.role === "assistant").length;
      return scripts[objective]?.[turn] ?? { text: `(no turn ${turn} for "${objective}")` };
    }),
  );
}
