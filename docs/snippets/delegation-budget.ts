// A child task with a budget. The parent delegates to a "researcher" agent; the child is carved
// what is left of the parent's 5,000 tokens, tightened by the researcher's own 800, and fails
// (rather than parks) when it reaches them. The parent's delegate call gets the failure as an
// error and the parent answers anyway. Runs offline: each agent has its own ScriptedModel.
import { type Agent, createAgent, defineTool, fold, MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

const usage = { inputTokens: 300, outputTokens: 100 }; // 400 tokens a turn, as the provider would report
const search = defineTool({
  name: "search",
  description: "Search the web",
  inputSchema: z.object({ query: z.string() }),
  execute: ({ query }) => `results for ${query}`,
});

const researcher: Agent = {
  name: "researcher",
  tools: [search],
  budget: { maxTokens: 800, onExceeded: "fail" },
  model: new ScriptedModel([
    { toolCalls: [{ name: "search", input: { query: "tallest mountain" } }], usage },
    { toolCalls: [{ name: "search", input: { query: "height of K2" } }], usage },
    // No third turn: the budget is checked before each model call, and 800 tokens are spent.
  ]),
};

const store = new MemoryStore();
const agent = createAgent({
  store,
  budget: { maxTokens: 5000 },
  delegation: { agents: { researcher }, maxChildren: 2 },
  model: new ScriptedModel([
    {
      toolCalls: [{ name: "delegate", input: { objective: "Find the tallest mountain.", agent: "researcher" } }],
      usage,
    },
    { text: "The researcher ran out of budget; as far as I know it is Mount Everest.", usage },
  ]),
});

const result = await agent.run("Which mountain is the tallest?");
const [child] = fold(await store.read(result.taskId)).children;
if (child === undefined) throw new Error("no child task");
const childState = fold(await store.read(child.childTaskId));

// What the child was given: 5,000 less the parent's first turn. Its agent's 800 is tighter still.
console.log("carved", childState.metadata?.budget); // carved { maxTokens: 4600 }
console.log("child", child.status, childState.error?.code); // child failed BudgetExceeded
const call = result.steps[0]?.toolCalls[0]?.result;
console.log("delegate", call?.status, call?.content.replace(/^.* failed: /, "")); // delegate error The task used 800 tokens, reaching its limit of 800.
// The parent's usage counts its child's: two turns of its own and two of the child's.
console.log(result.status, result.usage.inputTokens + result.usage.outputTokens); // completed 1600
