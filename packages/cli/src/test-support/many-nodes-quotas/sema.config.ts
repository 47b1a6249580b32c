/**
 * The agents and quotas of the quota test on many nodes: every node (API or worker) loads this
 * file, so all enforce the same settings over the one database. `slow` holds its task active for
 * a while (the concurrentTasks burst); `spender` makes two turns of 5000 tokens each (the token
 * quota). The models are stateless (their turn is read off the transcript), so any worker
 * continues any task.
 */
import { type Agent, defineTool } from "@sema-agent/core";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { z } from "zod";

const note = defineTool({
  name: "note",
  description: "Note a step",
  inputSchema: z.object({ step: z.number() }),
  execute: async ({ step }) => `noted ${step}`,
});

const turns = (request: { transcript: ReadonlyArray<{ role: string }> }): number =>
  request.transcript.filter((entry) => entry.role === "assistant").length;

const usage = { inputTokens: 5000, outputTokens: 0 };
const spend = (request: { transcript: ReadonlyArray<{ role: string }> }): ScriptedTurn =>
  turns(request) < 1
    ? { delayMs: 50, usage, toolCalls: [{ name: "note", input: { step: 1 } }] }
    : { delayMs: 50, usage, text: "spent" };

const linger = (request: { transcript: ReadonlyArray<{ role: string }> }): ScriptedTurn =>
  turns(request) < 1 ? { delayMs: 4000, toolCalls: [{ name: "note", input: { step: 1 } }] } : { text: "done" };

const agent = (step: (request: { transcript: ReadonlyArray<{ role: string }> }) => ScriptedTurn): Agent => ({
  model: new ScriptedModel(
    Array.from({ length: 1000 }, () => step),
    { mode: "by-transcript", recordRequests: false },
  ),
  tools: [note],
});

export default {
  agents: { spender: agent(spend), slow: agent(linger) },
  defaultAgent: "spender",
  quotas: {
    principals: {
      crowd: { concurrentTasks: 3 },
      metered: { tokensPerDay: 30_000 },
    },
  },
};
