// The agent under test: a shop's support desk that looks an order up and refunds it, the refund
// waiting for a person's approval. Its model is a script (offline); a replay never calls it, so
// the same definition serves to record a task (record.ts) and to replay one (replay.test.ts).
import { type Agent, defineTool } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

export const INSTRUCTIONS = "You run the support desk of a tea shop. Look an order up before you refund it.";

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Find an order by its number",
  inputSchema: z.object({ order: z.string() }),
  readOnly: true,
  execute: ({ order }) => ({ order, item: "Cast-iron teapot", totalEur: 39.9, delivered: true }),
});

const refund = defineTool({
  name: "refund",
  description: "Refund an order, in full or in part",
  inputSchema: z.object({ order: z.string(), amountEur: z.number() }),
  needsApproval: true,
  execute: ({ order, amountEur }) => `Refund R-77 of ${amountEur.toFixed(2)} EUR issued for order ${order}`,
});

/**
 * The agent. `by-transcript`: the turn the script plays follows from the task's log, so a fresh
 * model is not needed per task.
 */
export function supportAgent(instructions: string = INSTRUCTIONS): Agent {
  const model = new ScriptedModel(
    [
      { text: "Let me find the order.", toolCalls: [{ name: "lookup_order", input: { order: "1042" } }] },
      { toolCalls: [{ name: "refund", input: { order: "1042", amountEur: 39.9 } }] },
      { text: "Refunded 39.90 EUR for order 1042 (refund R-77). Sorry about the teapot!" },
    ],
    { mode: "by-transcript" },
  );
  return { name: "support", instructions, model, tools: [lookupOrder, refund] };
}
