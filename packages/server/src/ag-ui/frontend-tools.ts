/**
 * AG-UI's frontend tools (`RunAgentInput.tools`) as Sema's external tools: offered to the model
 * beside the agent's own; a call to one ends the run for the client to execute, and the client's
 * tool message in the next run is recorded as its result.
 */

import type { Agent, JsonValue } from "@sema-agent/core";
import type { ExternalTool } from "@sema-agent/core/protocol";
import { badRequest } from "../http-error.ts";
import type { AgUiTool } from "./run-input.ts";

const NAME = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The delegation tool's name when an agent's `delegation` sets none (core's `delegate`). Reserved
 * for every thread, delegating or not: a frontend tool of that name could otherwise answer for a
 * sub-agent on a thread whose agent delegates.
 */
const DELEGATE_TOOL = "delegate";

/**
 * The tool names a thread's model may call that the harness runs itself: the tools and the
 * delegation tool of each agent given (the agent of the endpoint and the agent the thread records,
 * which differ when a client runs a thread through another agent's endpoint), plus `delegate`.
 */
export function harnessToolNames(agents: Iterable<Agent | undefined>): Set<string> {
  const names = new Set<string>([DELEGATE_TOOL]);
  for (const agent of agents) {
    if (agent === undefined) continue;
    for (const tool of agent.tools ?? []) names.add(tool.name);
    if (agent.delegation?.toolName !== undefined) names.add(agent.delegation.toolName);
  }
  return names;
}

/**
 * The run's tools, checked: a name the harness runs (see {@link harnessToolNames}), or one given
 * twice, is refused (400), so no frontend tool can stand in for an approval-gated tool or a
 * sub-agent.
 */
export function externalToolsOf(tools: readonly AgUiTool[], harnessTools: ReadonlySet<string>): ExternalTool[] {
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    const path = `body.tools.${index}`;
    if (!NAME.test(tool.name)) throw badRequest(`${path}.name: 1 to 128 letters, digits, _ or -`, `${path}.name`);
    if (harnessTools.has(tool.name))
      throw badRequest(
        `${path}.name: ${tool.name} is a tool the agent runs itself (its own tools and delegation are reserved)`,
        `${path}.name`,
      );
    if (seen.has(tool.name)) throw badRequest(`${path}.name: ${tool.name} is given twice`, `${path}.name`);
    seen.add(tool.name);
    const parameters = tool.parameters as unknown;
    if (
      parameters !== undefined &&
      (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
    )
      throw badRequest(`${path}.parameters: must be a JSON Schema object`, `${path}.parameters`);
    const inputSchema = (parameters ?? { type: "object" }) as { [key: string]: JsonValue };
    return { name: tool.name, description: tool.description, inputSchema };
  });
}
