/**
 * The agent card of one served agent: who it is (name, version, skills from its tools), what it
 * can do (streaming, push notifications), how to authenticate (a bearer token), and where its two
 * bindings are, as absolute URLs on the origin the card was fetched from.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from "@a2a-js/sdk";
import type { Agent } from "@sema-agent/core";

/** Where an agent's A2A endpoints are mounted, relative to the origin. */
export interface AgentEndpoint {
  /** The registry's name for it. */
  name: string;
  /** `/a2a` for the default agent, `/a2a/agents/{name}` for each named one. */
  base: string;
}

function skillsOf(name: string, agent: Agent): AgentSkill[] {
  const skill = (id: string, description: string, tags: string[]): AgentSkill => ({
    id,
    name: id,
    description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  });
  const tools = (agent.tools ?? []).map((tool) => skill(tool.name, tool.description, ["tool"]));
  // One skill for the agent as a whole, then one per tool it may call.
  return [skill(name, `Runs a task with the ${name} agent until it completes or needs you.`, ["task"]), ...tools];
}

/** The card of `agent` served at `origin` + `endpoint.base`. */
export function agentCard(
  origin: string,
  endpoint: AgentEndpoint,
  agent: Agent,
  options: { version: string; pushNotifications: boolean },
): AgentCard {
  const name = agent.name ?? endpoint.name;
  const url = `${origin}${endpoint.base}`;
  const iface = (at: string, protocolBinding: string) => ({
    url: at,
    protocolBinding,
    tenant: "",
    protocolVersion: A2A_PROTOCOL_VERSION,
  });
  return {
    name,
    description: `The Sema agent "${name}": durable tasks that survive restarts, with approvals for risky tool calls.`,
    supportedInterfaces: [iface(url, "JSONRPC"), iface(`${url}/v1`, "HTTP+JSON")],
    provider: undefined,
    version: options.version,
    capabilities: {
      streaming: true,
      pushNotifications: options.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { description: "A Sema API token (sema token create)", scheme: "Bearer", bearerFormat: "opaque" },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: skillsOf(name, agent),
    signatures: [],
  };
}
