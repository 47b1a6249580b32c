// A tool that needs a person's approval, and a hook that refuses one input outright. Runs offline:
// the ScriptedModel asks for two calls, the hook denies the first, the second waits for approval.
import { createAgent, defineTool } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

const remove = defineTool({
  name: "remove_file",
  description: "Delete a file",
  inputSchema: z.object({ path: z.string() }),
  needsApproval: true,
  execute: ({ path }) => `removed ${path}`,
});

const model = new ScriptedModel([
  { toolCalls: [{ name: "remove_file", input: { path: "/etc/passwd" } }] },
  { toolCalls: [{ name: "remove_file", input: { path: "notes.txt" } }] },
  { text: "Removed notes.txt." },
]);

const agent = createAgent({
  model,
  tools: [remove],
  hooks: {
    // `call.input` is typed from the tool's schema: { path: string }.
    beforeTool: ({ call }) =>
      call.input.path.startsWith("/") ? { action: "deny", reason: "only relative paths" } : undefined,
  },
});

const first = await agent.run("Clean up notes.txt");
console.log(first.status, first.parked?.reason); // parked approval

const [pending] = await agent.approvals(first.taskId);
if (pending === undefined) throw new Error("nothing waits for approval");
console.log(pending.toolName, pending.input); // remove_file { path: 'notes.txt' }
await agent.approve(first.taskId, pending.callId, { actor: { id: "alice@example.com", verified: true } });

const done = await agent.continue(first.taskId);
console.log(done.status, done.text); // completed Removed notes.txt.
