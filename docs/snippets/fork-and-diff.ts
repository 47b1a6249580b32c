// Fork a finished task at a tool result, give the call another result, run the fork on, and set
// the two tasks side by side. Runs offline: both models are scripts, the store is in memory.
import { type Agent, defineTool, MemoryStore, requestResume, runLeg, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { diffTasks, forkTask, formatTaskDiff } from "@sema-agent/core/time-travel";
import { z } from "zod";

let forecasts = 0;
const forecast = defineTool({
  name: "forecast",
  description: "This afternoon's weather in a city",
  inputSchema: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => {
    forecasts += 1;
    return `Sunny in ${city}, 24 °C`;
  },
});
const model = new ScriptedModel([
  { toolCalls: [{ name: "forecast", input: { city: "Lisbon" } }] },
  { text: "Walk up to the castle, then a late lunch in Alfama." },
]);
const agent: Agent = { model, tools: [forecast] };

const store = new MemoryStore();
const taskId = await startTask(store, {
  objective: "Plan my afternoon in Lisbon",
  principal: "ana",
  actor: { id: "ana", verified: true },
});
await runLeg({ store, agent }, taskId);

// What if the forecast had said rain? The fork is cut just before the recorded result.
const result = (await store.read(taskId)).find((event) => event.type === "tool_result");
if (result?.type !== "tool_result") throw new Error("no tool result");
const fork = await forkTask(store, taskId, {
  edits: { toolResult: { callId: result.callId, content: "Heavy rain in Lisbon, 15 °C" } },
});
const parked = (await store.getTask(fork.taskId)).summary;
console.log(parked.status, parked.parkedReason, parked.forkedFrom?.taskId === taskId); // parked forked true

// A resume request makes the fork runnable. The model sees the new result; the tool is not run.
await requestResume(store, fork.taskId);
const rainy = new ScriptedModel([{ text: "Rain all afternoon: the tile museum, then a café." }]);
const outcome = await runLeg({ store, agent: { ...agent, model: rainy } }, fork.taskId);
console.log(outcome.status, forecasts); // completed 1

// The trajectories side by side. The first two lines name each task with its steps and usage;
// what follows them is the same on every run, so only that is printed here.
const diff = await diffTasks(store, taskId, fork.taskId);
console.log(formatTaskDiff(diff).split("\n").slice(2).join("\n"));
