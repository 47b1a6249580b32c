/** A scripted agent with one tool that needs approval: what the worker and server tests run. */
import { type Agent, defineTool } from "@sema-agent/core";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { z } from "zod";

/** A tool whose every call waits for an approval. */
export const writeTool = defineTool({
  name: "write_note",
  description: "Write a note (needs approval)",
  inputSchema: z.object({ text: z.string() }),
  needsApproval: true,
  execute: ({ text }) => `wrote ${text}`,
});

/** An agent named `name` answering from `turns` (by transcript), with `writeTool`. */
export function scriptedAgent(turns: ScriptedTurn[], name = "default"): Agent & { model: ScriptedModel } {
  return { name, model: new ScriptedModel(turns, { mode: "by-transcript" }), tools: [writeTool] };
}
