/**
 * The model request as a pure function of the folded state and the agent's definition (design §5
 * "Bytes are pinned"): the same log yields the same request, whichever process builds it.
 */

import type { TaskState } from "../../core/fold.ts";
import { STANDING_INSTRUCTIONS } from "../../core/standing-instructions.ts";
import type { ModelRequest, ToolSpec } from "../../ports/model.ts";
import type { Tool } from "../../ports/tool.ts";

export interface RequestSettings {
  instructions?: string;
  tools: readonly Tool[];
  maxOutputTokens?: number;
  temperature?: number;
}

export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.jsonSchema }));
}

let lastInstructions: string | undefined;
let lastSystem = STANDING_INSTRUCTIONS;

/** The system text: standing instructions, then the agent's own (the last one built is reused). */
export function systemText(instructions: string | undefined): string {
  if (instructions === undefined || instructions === "") return STANDING_INSTRUCTIONS;
  if (instructions !== lastInstructions) {
    lastSystem = `${STANDING_INSTRUCTIONS}\n\n${instructions}`;
    lastInstructions = instructions;
  }
  return lastSystem;
}

export function buildModelRequest(
  state: TaskState,
  settings: RequestSettings,
  specs: readonly ToolSpec[] = toolSpecs(settings.tools),
): ModelRequest {
  const request: ModelRequest = {
    system: systemText(settings.instructions),
    transcript: state.transcript,
    tools: specs,
  };
  if (settings.maxOutputTokens !== undefined) request.maxOutputTokens = settings.maxOutputTokens;
  if (settings.temperature !== undefined) request.temperature = settings.temperature;
  return request;
}

/** What a model request needs from an agent's definition, without absent keys. */
export function requestSettings(
  agent: { instructions?: string; maxOutputTokens?: number; temperature?: number },
  tools: readonly Tool[],
): RequestSettings {
  const settings: RequestSettings = { tools };
  if (agent.instructions !== undefined) settings.instructions = agent.instructions;
  if (agent.maxOutputTokens !== undefined) settings.maxOutputTokens = agent.maxOutputTokens;
  if (agent.temperature !== undefined) settings.temperature = agent.temperature;
  return settings;
}
