/** The bodies of `GET /v1/agents` and `GET /v1/agents/{name}`: what this server serves, without secrets. */

import { provenancePolicySchema } from "@sema-agent/core/protocol";
import { quotasSchema } from "@sema-agent/core/quotas";
import { z } from "zod";
import { JsonValue } from "./common.ts";
import { named } from "./registry.ts";
import { AGENT_NAME_PATTERN } from "./tasks.ts";

export const AgentParams = z.strictObject({ name: z.string().regex(AGENT_NAME_PATTERN) });

export const AgentTool = named(
  "AgentTool",
  z.object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), JsonValue).describe("The JSON Schema of its input, as the model is shown it."),
    effects: z.enum(["none", "local", "external"]).describe("What a call can do, for the provenance policy."),
    needsApproval: z
      .union([z.boolean(), z.literal("policy")])
      .describe("`true`: every call waits for a person; `policy`: a function of the input decides."),
  }),
);

export const AgentInfo = named(
  "AgentInfo",
  z.object({
    name: z.string(),
    default: z.boolean().describe("Tasks that name no agent run as this one."),
    instructions: z.string().optional().describe("The agent's instructions, when they are text (not a function)."),
    model: z.string().describe("The model's id."),
    tools: z.array(AgentTool),
    delegates: z.boolean().describe("Whether it may hand work to child tasks (the built-in `delegate` tool)."),
    policies: z.object({
      approvers: z
        .enum(["approver-role", "any-verified-actor", "custom"])
        .describe("Who may decide its calls: the server's `approvers` rule for it, or `custom` (the host's own)."),
      approvalPolicy: z.boolean().describe("Whether an agent-level rule asks for approval beyond the tools' own."),
      provenance: provenancePolicySchema.optional().describe("Its provenance policy; absent: the default."),
    }),
    budget: z
      .object({
        maxTurns: z.number().optional(),
        maxTokens: z.number().optional(),
        maxCostUsd: z.number().optional(),
        maxActiveMs: z.number().optional(),
        onExceeded: z.enum(["park", "fail"]).optional(),
      })
      .optional()
      .describe("Its limits per task (prices left out)."),
    quotas: quotasSchema.optional().describe("The caller's principal's quotas on this server, if any."),
  }),
  "An agent this server serves. Never its model's credentials, provider options, headers or hooks.",
);

export const AgentList = named("AgentList", z.object({ agents: z.array(AgentInfo) }));

export type AgentInfoBody = z.infer<typeof AgentInfo>;
