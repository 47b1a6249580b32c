import { createAgent, defineTool } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

const input = z.object({ a: z.number(), b: z.number() });
const add = defineTool({ name: "add", description: "Add a and b", inputSchema: input, execute: ({ a, b }) => a + b });
const model = new ScriptedModel([{ toolCalls: [{ name: "add", input: { a: 2, b: 3 } }] }, { text: "2 + 3 = 5" }]);
const result = await createAgent({ model, tools: [add] }).run("What is 2 + 3?");
if (result.status !== "completed" || result.steps[0]?.toolCalls[0]?.result?.content !== "5") throw new Error("failed");
console.log(result.text);
