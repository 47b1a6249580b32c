// The agents `sema serve` hosts, read from this file in its working directory: a default export
// `{ agents: { name: Agent } }`. The model is scripted so the example runs offline; a real one
// would be `resolveModel("anthropic:…", process.env)` of @sema-agent/ai-sdk.
import { defineTool, jsonSchema } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";

const shout = defineTool({
  name: "shout",
  description: "Upper-case a text",
  inputSchema: jsonSchema<{ text: string }>({
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  }),
  execute: ({ text }) => text.toUpperCase(),
});

// by-transcript: each task plays the script from its own log, so one model serves every task.
const model = new ScriptedModel([{ toolCalls: [{ name: "shout", input: { text: "hello" } }] }, { text: "HELLO!" }], {
  id: "script:shouter",
  mode: "by-transcript",
});

export default { agents: { shouter: { model, tools: [shout], instructions: "Shout what you are asked to." } } };
