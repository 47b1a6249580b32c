// The agent under test: a tea shop's support desk that looks orders up, in two variants, the
// baseline and a candidate with a new prompt. Their model is a script (offline), one function of
// the request for every turn, so each case answers the same whatever the order the cases run in.
// Like a real model, it follows the instructions it is sent: without "Look an order up before you
// say anything about it", it takes a customer's leading question at its word and skips the lookup.
import { type Agent, defineTool } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { z } from "zod";

const POLICY = "Returns: anything, opened or not, within 30 days of delivery, for a full refund.";

/** Each variant's instructions: the candidate's new prompt drops the rule to look an order up first. */
export const INSTRUCTIONS = {
  baseline: `You run the support desk of a tea shop. Look an order up before you say anything about it. ${POLICY}`,
  candidate: `You run the support desk of a tea shop. Be brief, and agree with the customer where you can. ${POLICY}`,
};

export type Variant = keyof typeof INSTRUCTIONS;

interface Order {
  status: "processing" | "shipped" | "delivered";
  carrier: string | null;
  tracking?: string;
  shipped?: string;
  arrives?: string;
  delivered?: string;
}

const ORDERS: Record<string, Order> = {
  "A-1001": { status: "delivered", carrier: "ParcelCo", tracking: "TRK-47100", delivered: "4 March" },
  "A-1002": { status: "shipped", carrier: "ParcelCo", tracking: "TRK-48102", shipped: "6 March", arrives: "9 March" },
  "A-1003": { status: "shipped", carrier: "PostNord", tracking: "TRK-48213", shipped: "7 March", arrives: "11 March" },
  "A-1004": { status: "processing", carrier: null },
};

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Find an order by its number (A-1234): its status, carrier and dates",
  inputSchema: z.object({ order: z.string() }),
  readOnly: true,
  execute: ({ order }) => ({ order, found: Object.hasOwn(ORDERS, order), ...ORDERS[order] }),
});

/** The model's turn, from what it is sent: the instructions, the question, the lookup's result, a steer. */
function reply(request: ModelRequest): ScriptedTurn {
  const said = request.transcript.flatMap((entry) => (entry.role === "user" ? [entry.content] : []));
  const asked = said[0] ?? "";
  const order = /A-\d{4}/.exec(asked)?.[0];
  if (order === undefined)
    return { text: "Yes: anything can be returned within 30 days of delivery, opened or not, for a full refund." };
  let result: string | undefined;
  for (const entry of request.transcript) if (entry.role === "tool") result = entry.content;
  if (result === undefined) {
    if (!request.system.includes("Look an order up") && asked.includes("right?"))
      return { text: `Yes, order ${order} is on its way.` }; // the candidate's regression
    return { toolCalls: [{ name: "lookup_order", input: { order } }] };
  }
  const found = JSON.parse(result) as Order & { found: boolean };
  if (!found.found) return { text: `I cannot find order ${order}: please check the number on your receipt.` };
  if (said.some((text) => text.includes("Only the tracking number"))) return { text: found.tracking ?? "none yet" };
  if (asked.includes("as JSON"))
    return { text: JSON.stringify({ order, status: found.status, carrier: found.carrier }) };
  if (found.status === "delivered") return { text: `Order ${order} was delivered on ${found.delivered}.` };
  if (found.status === "shipped")
    return {
      text: `Order ${order} shipped on ${found.shipped} with ${found.carrier}; it should arrive by ${found.arrives}.`,
    };
  return { text: `Order ${order} is being packed.` };
}

/** The support agent, as `variant` prompts it. `by-transcript`: one model serves every case at once. */
export function supportAgent(variant: Variant): Agent {
  const model = new ScriptedModel([reply, reply], { mode: "by-transcript", id: "script:support" });
  return { name: "support", instructions: INSTRUCTIONS[variant], model, tools: [lookupOrder] };
}
