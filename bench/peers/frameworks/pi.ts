/**
 * pi's agent core: `agentLoop` per task with a scripted stream function — each call returns an
 * `AssistantMessageEventStream` that emits `start` and `done` with the scripted message at once
 * (pi-ai's own faux provider also estimates usage over the whole context per call, which would
 * measure the fake, not the loop).
 */
import { type AgentMessage, type AgentTool, agentLoop, type StreamFn } from "@mariozechner/pi-agent-core";
import {
  type AssistantMessage,
  createAssistantMessageEventStream,
  fauxAssistantMessage,
  fauxText,
  fauxToolCall,
  type Model,
  Type,
} from "@mariozechner/pi-ai";
import { type Adapter, callsAt, FINAL_TEXT, lookupResult, OBJECTIVE, type TaskShape, TURN_TEXT } from "../workloads.ts";

const parameters = Type.Object({ key: Type.String() });

const lookup: AgentTool<typeof parameters> = {
  name: "lookup",
  label: "Lookup",
  description: "Look a key up",
  parameters,
  execute: async (_id, { key }) => ({ content: [{ type: "text", text: lookupResult(key) }], details: undefined }),
};

const MODEL: Model<string> = {
  id: "scripted",
  name: "scripted",
  api: "bench-scripted",
  provider: "bench",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 16_384,
};

function scriptedStream(shape: TaskShape): StreamFn {
  let turn = 0;
  return () => {
    const calls = callsAt(shape, turn++);
    const message: AssistantMessage =
      calls.length === 0
        ? fauxAssistantMessage(FINAL_TEXT)
        : fauxAssistantMessage(
            [fauxText(TURN_TEXT), ...calls.map((call) => fauxToolCall("lookup", { key: call.key }, { id: call.id }))],
            { stopReason: "toolUse" },
          );
    const stream = createAssistantMessageEventStream();
    stream.push({ type: "start", partial: message });
    stream.push({ type: "done", reason: message.stopReason === "toolUse" ? "toolUse" : "stop", message });
    stream.end(message);
    return stream;
  };
}

/** pi's adapter. */
export const adapter: Adapter = {
  name: "pi agentLoop",
  usage:
    "`@mariozechner/pi-agent-core`: `agentLoop([user message], { systemPrompt, messages: [], tools: [lookup] }, { model, convertToLlm }, undefined, streamFn)` per task, drained to its end; `streamFn` returns a pi-ai `AssistantMessageEventStream` with `start` and `done` of the scripted message.",
  createRunner() {
    return {
      async runTask(shape) {
        const prompt: AgentMessage = { role: "user", content: OBJECTIVE, timestamp: Date.now() };
        const stream = agentLoop(
          [prompt],
          { systemPrompt: "Look things up.", messages: [], tools: [lookup] },
          { model: MODEL, convertToLlm: (messages) => messages as never },
          undefined,
          scriptedStream(shape),
        );
        for await (const _event of stream) {
          // Drained, as a host consuming the loop's events would.
        }
        const messages = await stream.result();
        const last = messages.at(-1);
        const assistantTurns = messages.filter((m) => m.role === "assistant").length;
        if (assistantTurns !== shape.turns || last?.role !== "assistant")
          throw new Error(`pi: ${assistantTurns} turns for ${shape.turns}`);
      },
    };
  },
};
