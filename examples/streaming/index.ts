// Streaming a run: agent.stream yields the run's events as they happen (the stored ones and the
// ephemeral text deltas); textStream is the text alone. Offline: ScriptedModel plays the turns.
import { createAgent, type StreamEvent } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";

// chunkSize splits the answer into several deltas, as a real provider streams it.
const turn = { text: "Streams arrive piece by piece.", chunkSize: 6 };
const agent = createAgent({ model: new ScriptedModel([turn, turn]) });

// 1. Every event: note the types, print the deltas as they come.
const types: StreamEvent["type"][] = [];
const stream = agent.stream("Say something about streams.");
for await (const event of stream) {
  types.push(event.type);
  if (event.type === "text_delta") process.stdout.write(`[${event.delta}]`);
}
process.stdout.write("\n");
// The stored events bracket the deltas; the deltas themselves are never stored.
console.log(`events, in order: ${[...new Set(types)].join(", ")}`);
const result = await stream.result;
if (result.status !== "completed") throw new Error(`expected completed, got ${result.status}`);
if (types.filter((type) => type === "text_delta").length < 2) throw new Error("expected several text deltas");
if (!types.includes("task_completed")) throw new Error("expected task_completed among the events");

// 2. The text alone: the deltas joined are the final answer.
let text = "";
const second = agent.stream("Again, text only.");
for await (const delta of second.textStream) text += delta;
console.log(`textStream joined: "${text}" (${(await second.result).usage.outputTokens} output tokens)`);
if (text !== (await second.result).text) throw new Error("textStream differs from the result's text");
console.log(`streamed ${types.length} events; textStream: ${text}`);
