/**
 * What `GET /v1/agents` shows of a served agent: its name, model id, text instructions, tools
 * (with the JSON Schema the model is shown), approval and provenance policies, budget and the
 * caller's quotas. Never the model's credentials or options, provider options, headers, hooks,
 * scorers or prices: only fields picked here are shown, so a new field of `Agent` stays hidden.
 */
import type { Agent } from "@sema-agent/core";
import type { Quotas } from "@sema-agent/core/quotas";
import type { AgentInfoBody } from "../schemas/agents.ts";

/** Who may decide an agent's calls: the server's rule for it, or `custom` (a host's `canApprove`). */
export type ApproverRuleOf = (agent: string) => AgentInfoBody["policies"]["approvers"];

/** The agent `name` as `GET /v1/agents` shows it. */
export function agentInfo(
  name: string,
  agent: Agent,
  context: { isDefault: boolean; approvers: ApproverRuleOf; quotas: Quotas | undefined },
): AgentInfoBody {
  const info: AgentInfoBody = {
    name,
    default: context.isDefault,
    model: agent.model.id,
    tools: (agent.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.jsonSchema,
      effects: tool.effects ?? (tool.readOnly === true ? "none" : "local"),
      needsApproval: typeof tool.needsApproval === "function" ? "policy" : tool.needsApproval === true,
    })),
    delegates: agent.delegation !== undefined,
    policies: {
      approvers: context.approvers(name),
      approvalPolicy: agent.approvalPolicy !== undefined,
      ...(agent.provenancePolicy === undefined ? {} : { provenance: agent.provenancePolicy }),
    },
  };
  if (typeof agent.instructions === "string") info.instructions = agent.instructions;
  const { budget } = agent;
  if (budget !== undefined) {
    const shown: NonNullable<AgentInfoBody["budget"]> = {};
    if (budget.maxTurns !== undefined) shown.maxTurns = budget.maxTurns;
    if (budget.maxTokens !== undefined) shown.maxTokens = budget.maxTokens;
    if (budget.maxCostUsd !== undefined) shown.maxCostUsd = budget.maxCostUsd;
    if (budget.maxActiveMs !== undefined) shown.maxActiveMs = budget.maxActiveMs;
    if (budget.onExceeded !== undefined) shown.onExceeded = budget.onExceeded;
    info.budget = shown;
  }
  if (context.quotas !== undefined) info.quotas = { ...context.quotas };
  return info;
}
