/**
 * The agent `sema serve` runs in the soak (bench/soak.ts): a stateless scripted model whose one
 * turn takes as long as its objective says (`slow`: 5 s, anything else: 1.5 s), then answers.
 */
import type { Agent } from "@sema-agent/core";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";

const step = (request: { transcript: ReadonlyArray<{ role: string; content?: unknown }> }): ScriptedTurn => {
  const first = request.transcript[0];
  const slow = typeof first?.content === "string" && first.content.includes("slow");
  return { delayMs: slow ? 5000 : 1500, text: "done" };
};

const agent: Agent = {
  model: new ScriptedModel(
    Array.from({ length: 10 }, () => step),
    { mode: "by-transcript", recordRequests: false },
  ),
  tools: [],
};

export default { agents: { soak: agent } };
