// Hooks: host code that watches and steers the loop. beforeTool denies a dangerous call (the model
// is told why and carries on); onStop refuses an answer that lacks a summary and sends the agent
// back to work with feedback, which the model sees before its next turn.
import { createAgent, defineTool } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

const files = ["a.txt", "b.txt", "c.txt"];
const list = defineTool({
  name: "list_files",
  description: "List files",
  inputSchema: z.object({}),
  execute: () => files.join(", "),
});
const remove = defineTool({
  name: "delete_files",
  description: "Delete files",
  inputSchema: z.object({ pattern: z.string() }),
  execute: () => {
    throw new Error("never reached: the hook denies it");
  },
});

const model = new ScriptedModel([
  { toolCalls: [{ name: "delete_files", input: { pattern: "*" } }] },
  { toolCalls: [{ name: "list_files", input: {} }] },
  { text: "There are 3 files." },
  { text: "There are 3 files. Summary: nothing was deleted." },
]);
const agent = createAgent({
  model,
  tools: [list, remove],
  hooks: {
    // call is typed by the agent's tools: narrowing on call.name narrows call.input.
    beforeTool: ({ call }) =>
      call.name === "delete_files"
        ? { action: "deny", reason: `deleting ${call.input.pattern} is not allowed here` }
        : undefined,
    onStop: ({ text }) =>
      text.includes("Summary:") ? undefined : { continue: true, feedback: "End with a line starting 'Summary:'." },
  },
});

const result = await agent.run("Tidy up the folder.");
const denied = result.steps[0]?.toolCalls[0]?.result;
if (denied?.status !== "denied") throw new Error(`expected the delete to be denied, got ${denied?.status}`);
if (!JSON.stringify(model.requests[3]?.transcript).includes("Summary:'")) throw new Error("feedback not sent");
if (result.status !== "completed" || !result.text.includes("Summary:")) throw new Error(`unexpected: ${result.text}`);
model.assertConsumed();
// What happened, turn by turn: the denied call, the allowed one, the answer onStop sent back, the final one.
for (const [index, step] of result.steps.entries()) {
  for (const call of step.toolCalls)
    console.log(
      `turn ${index + 1}: ${call.name}(${JSON.stringify(call.input)}) ${call.result?.status}: ${call.result?.content}`,
    );
  if (step.text !== "")
    console.log(
      `turn ${index + 1}: "${step.text}"${step.text.includes("Summary:") ? "" : " (onStop: no summary, back to work)"}`,
    );
}
console.log(`denied: ${denied.content} | final: ${result.text}`);
