// A tool that throws: the model is told the message exactly as before; the log keeps the error's
// class, message and stack on the result; the host's onToolError gets what was thrown.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { createAgent } from "../../agent/create-agent.ts";
import type { ToolOutput } from "../../ports/tool.ts";
import type { ToolResultEvent } from "../../protocol/task-event.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import type { ToolCallRef } from "../agent.ts";
import { defineTool, jsonSchema } from "./define-tool.ts";
import { errorDetail, MAX_ERROR_STACK_CHARS } from "./run-tool-call.ts";

class WeatherError extends Error {
  override name = "WeatherError";
}

const thrown = new WeatherError("the weather service is down");

type Execute = () => ToolOutput | Promise<ToolOutput>;

function weather(execute: Execute, timeoutMs?: number) {
  return defineTool({
    name: "weather",
    description: "The weather",
    inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute,
  });
}

async function runWith(
  execute: Execute,
  onToolError?: (error: unknown, call: ToolCallRef) => void,
  timeoutMs?: number,
) {
  const store = new MemoryStore();
  const model = new ScriptedModel([{ toolCalls: [{ name: "weather", input: { city: "Oslo" } }] }, { text: "sorry" }]);
  const agent = createAgent({
    model,
    store,
    tools: [weather(execute, timeoutMs)],
    ...(onToolError === undefined ? {} : { onToolError }),
  });
  const result = await agent.run("Weather in Oslo?");
  const events = await store.read(result.taskId);
  const toolResult = events.find((event) => event.type === "tool_result") as
    | (ToolResultEvent & { seq: number })
    | undefined;
  const started = events.find((event) => event.type === "tool_call_started");
  return { result, toolResult, started, model };
}

describe("a tool that throws", () => {
  for (const [how, execute] of [
    [
      "throws",
      () => {
        throw thrown;
      },
    ],
    ["rejects", async () => Promise.reject(thrown)],
  ] as const) {
    it(`${how}: the model reads the message alone; the result records class and stack; the hook gets the error`, async () => {
      const reports: Array<[unknown, ToolCallRef]> = [];
      const { result, toolResult, started, model } = await runWith(execute, (error, call) =>
        reports.push([error, call]),
      );
      expect(result.status).toBe("completed");
      // Pinned: what the model receives has not changed.
      expect(toolResult?.content).toBe("Error: the weather service is down");
      expect(toolResult?.error).toEqual({
        name: "WeatherError",
        message: "the weather service is down",
        stack: thrown.stack,
      });
      expect(toolResult?.error?.stack).toContain("tool-error.test.ts");
      const request = JSON.stringify(model.requests[1]?.transcript);
      expect(request).toContain("Error: the weather service is down");
      expect(request).not.toContain("WeatherError");
      expect(request).not.toContain("tool-error.test.ts");
      expect(reports).toHaveLength(1);
      expect(reports[0]?.[0]).toBe(thrown);
      expect(reports[0]?.[1]).toEqual({
        taskId: result.taskId,
        callId: toolResult?.callId,
        name: "weather",
        seq: started?.seq,
      });
    });
  }

  it("a hook that throws loses its report, never the call's result", async () => {
    const { result, toolResult } = await runWith(
      () => {
        throw thrown;
      },
      () => {
        throw new Error("tracker down");
      },
    );
    expect(result.status).toBe("completed");
    expect(toolResult?.error?.name).toBe("WeatherError");
  });

  it("a timeout is not a throw: no error recorded, the hook not called", async () => {
    const reports: unknown[] = [];
    const { toolResult } = await runWith(
      () => new Promise(() => {}),
      (error) => reports.push(error),
      20,
    );
    expect(toolResult?.content).toBe("The tool weather timed out after 20 ms.");
    expect(toolResult?.error).toBeUndefined();
    expect(reports).toEqual([]);
  });

  it("a result that is not an error records none", async () => {
    const { toolResult } = await runWith(() => "sunny");
    expect(toolResult?.status).toBe("ok");
    expect(toolResult?.error).toBeUndefined();
  });
});

describe("errorDetail", () => {
  it("names a thrown non-Error by its type and caps a long stack", () => {
    expect(errorDetail("boom")).toEqual({ name: "string", message: "boom" });
    expect(errorDetail(undefined)).toEqual({ name: "undefined", message: "undefined" });
    const long = new RangeError("deep");
    long.stack = `RangeError: deep\n${"    at f (x.js:1:1)\n".repeat(1000)}`;
    const detail = errorDetail(long);
    expect(detail.name).toBe("RangeError");
    expect(detail.stack?.length).toBe(MAX_ERROR_STACK_CHARS + 1);
    expect(detail.stack?.endsWith("…")).toBe(true);
  });
});
