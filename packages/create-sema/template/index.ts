// `npm start -- "a question"`: ask the agent once; print the tools it called and its answer.
// Offline it runs on a scripted model; with ANTHROPIC_API_KEY, OPENAI_API_KEY or SEMA_MODEL set,
// on a real one.
import { createAgent } from "@sema-agent/core";
import { assistant } from "./sema.config.ts";

const question = process.argv.slice(2).join(" ") || "What is the weather in Lisbon?";
console.log(`> ${question}  (model ${assistant.model.id})`);
const result = await createAgent(assistant).run(question);
for (const step of result.steps)
  for (const call of step.toolCalls)
    console.log(`  ${call.name}(${JSON.stringify(call.input)}) → ${call.result?.content ?? "(no result)"}`);
if (result.status === "completed") {
  console.log(result.text);
} else {
  console.error(`The task ${result.taskId} ended ${result.status}.`);
  process.exitCode = 1;
}
