/**
 * The built-in `delegate` tool (design §6): its spec for the model and the parsing of its input.
 * What a call does — spawning the child, answering from its result — is in `child-tasks.ts`.
 */
import type { ToolSpec } from "../../ports/model.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { DelegationSettings } from "../agent.ts";

/** The delegate tool's name unless `DelegationSettings.toolName` says otherwise. */
export const DELEGATE_TOOL = "delegate";

/** The tool as the model sees it: an objective, an optional agent name, `wait`. */
export function delegateSpec(settings: DelegationSettings): ToolSpec {
  const agents = Object.keys(settings.agents ?? {});
  const agentSchema: { [key: string]: JsonValue } =
    agents.length > 0 ? { type: "string", enum: agents } : { type: "string" };
  return {
    name: settings.toolName ?? DELEGATE_TOOL,
    description:
      "Hand a self-contained piece of work to a sub-agent that works on it as its own task. With wait (the default) the call returns the sub-agent's final answer; with wait=false you continue at once and its result arrives later as a message.",
    inputSchema: {
      type: "object",
      properties: {
        objective: { type: "string", description: "What the sub-agent should do, with everything it needs to know." },
        agent: { ...agentSchema, description: "Which sub-agent to use (default: one like you)." },
        wait: { type: "boolean", description: "Wait for the result (default true)." },
      },
      required: ["objective"],
      additionalProperties: false,
    },
  };
}

/** A delegate call's input, parsed. */
export interface DelegateInput {
  objective: string;
  agent?: string;
  wait: boolean;
}

/** The tool's input, or a message for the model saying what is wrong with it. */
export function parseDelegateInput(input: JsonValue, settings: DelegationSettings): DelegateInput | string {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return "Invalid input for delegate: expected an object";
  const { objective, agent, wait } = input as { [key: string]: JsonValue };
  if (typeof objective !== "string" || objective.trim() === "")
    return "Invalid input for delegate: objective must be a non-empty string";
  if (
    agent !== undefined &&
    (typeof agent !== "string" || (settings.agents !== undefined && !(agent in settings.agents)))
  ) {
    return `Invalid input for delegate: unknown agent ${JSON.stringify(agent)}`;
  }
  if (wait !== undefined && typeof wait !== "boolean") return "Invalid input for delegate: wait must be a boolean";
  return { objective, ...(typeof agent === "string" ? { agent } : {}), wait: wait !== false };
}
