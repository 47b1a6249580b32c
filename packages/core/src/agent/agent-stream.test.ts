import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { StreamEvent } from "../protocol/stream-event.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
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
});
