/**
 * The Vercel AI SDK 7 agent loop: a `ToolLoopAgent` per task (`generate()`, step limit =
 * the script's turns), on `MockLanguageModelV4` from `ai/test` answering each `doGenerate` from
 * the script, and a `tool()` with a zod schema.
 */
import { isStepCount, ToolLoopAgent, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { type Adapter, callsAt, FINAL_TEXT, lookupResult, OBJECTIVE, type TaskShape, TURN_TEXT } from "../workloads.ts";

// The provider types, without importing @ai-sdk/provider (not a dependency of this package).
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
type LanguageModelV4Content = GenerateResult["content"][number];

const lookup = tool({
  description: "Look a key up",
  inputSchema: z.object({ key: z.string() }),
  execute: async ({ key }) => lookupResult(key),
});

const USAGE: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function scriptedModel(shape: TaskShape): MockLanguageModelV4 {
  let turn = 0;
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async () => {
      // The mock records every call's options (the whole prompt); Sema's ScriptedModel runs with
      // recording off, so drop them here too.
      model.doGenerateCalls.length = 0;
      const calls = callsAt(shape, turn++);
      const content: LanguageModelV4Content[] =
        calls.length === 0
          ? [{ type: "text", text: FINAL_TEXT }]
          : [
              { type: "text", text: TURN_TEXT },
              ...calls.map(
                (call): LanguageModelV4Content => ({
                  type: "tool-call",
                  toolCallId: call.id,
                  toolName: "lookup",
                  input: JSON.stringify({ key: call.key }),
                }),
              ),
            ];
      return {
        content,
        finishReason: { unified: calls.length === 0 ? "stop" : "tool-calls", raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
  return model;
}

/** The AI SDK's adapter. */
export const adapter: Adapter = {
  name: "AI SDK ToolLoopAgent",
  usage:
    "`ai` 7: `new ToolLoopAgent({ model, tools: { lookup }, stopWhen: stepCountIs(turns) })` per task, `agent.generate({ prompt })`; `MockLanguageModelV4` from `ai/test` with a `doGenerate` that answers from the script (its call log cleared on every call).",
  createRunner() {
    return {
      async runTask(shape) {
        const agent = new ToolLoopAgent({
          model: scriptedModel(shape),
          tools: { lookup },
          stopWhen: isStepCount(shape.turns),
        });
        const result = await agent.generate({ prompt: OBJECTIVE });
        if (result.steps.length !== shape.turns || result.text !== FINAL_TEXT)
          throw new Error(`AI SDK: ${result.steps.length} steps for ${shape.turns} turns`);
      },
    };
  },
};
