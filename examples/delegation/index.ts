// A child task with a budget: the parent agent delegates a piece of work (the delegate tool) to a
// "researcher" agent. The child is a task of its own in the store, run here inside the parent's leg;
// its budget is carved from what is left of the parent's, and what it spends counts for the parent.
import { createAgent, fold, MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";

const usage = { inputTokens: 300, outputTokens: 100 };
const parentModel = new ScriptedModel([
  { toolCalls: [{ name: "delegate", input: { objective: "Find the tallest mountain.", agent: "researcher" } }], usage },
  { text: "The researcher says: Mount Everest.", usage },
]);
const researcher = { name: "researcher", model: new ScriptedModel([{ text: "Mount Everest.", usage }]) };

const store = new MemoryStore();
const agent = createAgent({
  model: parentModel,
  store,
  budget: { maxTokens: 2000 },
  delegation: { agents: { researcher }, maxChildren: 2 },
});
const result = await agent.run("Which mountain is the tallest? Ask the researcher.");
if (result.status !== "completed") throw new Error(`expected completed, got ${result.status}`);

// The parent's log names its child; the child's own log records the budget it was given.
const [child] = fold(await store.read(result.taskId)).children;
if (child?.status !== "completed" || child.result !== "Mount Everest.") throw new Error("child did not complete");
const budget = fold(await store.read(child.childTaskId)).metadata?.budget;
// 2,000 less the parent's first turn (400 tokens): the child may spend 1,600.
if (JSON.stringify(budget) !== JSON.stringify({ maxTokens: 1600 }))
  throw new Error(`budget: ${JSON.stringify(budget)}`);
// The parent's usage includes its child's turn: three turns of 400 tokens.
const spent = result.usage.inputTokens + result.usage.outputTokens;
if (spent !== 1200) throw new Error(`expected 1200 tokens in all, got ${spent}`);
console.log(`parent ${result.taskId}: delegate({"agent":"researcher"}) started a child task`);
console.log(`child: given ${JSON.stringify(budget)} of the parent's 2000 (400 spent), answered "${child.result}"`);
console.log(`parent's usage, its child's included: ${spent} tokens over 3 turns`);
console.log(`child ${child.childTaskId} (budget ${JSON.stringify(budget)}): ${result.text}`);
