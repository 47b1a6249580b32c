/**
 * AG-UI's frontend tools (`RunAgentInput.tools`) as Sema's external tools: offered to the model
 * beside the agent's own; a call to one ends the run for the client to execute, and the client's
 * tool message in the next run is recorded as its result.
 */

import type { JsonValue } from "@sema-agent/core";
import type { ExternalTool } from "@sema-agent/core/protocol";
import { badRequest } from "../http-error.ts";
import type { AgUiTool } from "./run-input.ts";

const NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** The run's tools, checked: a name the agent uses, or one given twice, is refused (400). */
export function externalToolsOf(tools: readonly AgUiTool[], agentTools: ReadonlySet<string>): ExternalTool[] {
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    const path = `body.tools.${index}`;
    if (!NAME.test(tool.name)) throw badRequest(`${path}.name: 1 to 128 letters, digits, _ or -`, `${path}.name`);
    if (agentTools.has(tool.name))
      throw badRequest(`${path}.name: the agent has its own tool ${tool.name}`, `${path}.name`);
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
