/**
 * The OpenAI Agents SDK core: an `Agent` per task run by `run()` (`maxTurns` = the script's
 * turns), on a scripted `Model` (the shape of the SDK's own test `FakeModel`), tracing disabled,
 * with a `tool()` that has a zod schema.
 */
import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from "@openai/agents-core";
import { z } from "zod";
import { type Adapter, callsAt, FINAL_TEXT, lookupResult, OBJECTIVE, type TaskShape, TURN_TEXT } from "../workloads.ts";

const lookup = tool({
  name: "lookup",
  description: "Look a key up",
  parameters: z.object({ key: z.string() }),
  execute: async ({ key }) => lookupResult(key),
});

function message(text: string): AgentOutputItem {
  return {
    id: "msg",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text }],
  };
}

function scriptedModel(shape: TaskShape): Model {
  let turn = 0;
  return {
    async getResponse(): Promise<ModelResponse> {
      const calls = callsAt(shape, turn++);
      const output: AgentOutputItem[] =
        calls.length === 0
          ? [message(FINAL_TEXT)]
          : [
              message(TURN_TEXT),
              ...calls.map(
                (call): AgentOutputItem => ({
                  type: "function_call",
                  id: call.id,
                  callId: call.id,
                  name: "lookup",
                  status: "completed",
                  arguments: JSON.stringify({ key: call.key }),
                }),
              ),
            ];
      return { output, usage: new Usage() };
    },
    getStreamedResponse() {
      throw new Error("not scripted");
    },
  };
}

/** The OpenAI Agents SDK's adapter. */
export const adapter: Adapter = {
  name: "OpenAI Agents run()",
  usage:
    "`@openai/agents-core`: `new Agent({ model, tools: [lookup] })` per task, `run(agent, objective, { maxTurns })`, a `Model` whose `getResponse` answers from the script, `setTracingDisabled(true)`.",
  createRunner() {
    setTracingDisabled(true);
    return {
      async runTask(shape) {
        const agent = new Agent({
          name: "bench",
          instructions: "Look things up.",
          model: scriptedModel(shape),
          tools: [lookup],
        });
        const result = await run(agent, OBJECTIVE, { maxTurns: shape.turns });
        if (result.finalOutput !== FINAL_TEXT) throw new Error(`OpenAI Agents: final output ${result.finalOutput}`);
      },
    };
  },
};
