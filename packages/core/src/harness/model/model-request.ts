/**
 * The model request as a pure function of the folded state and the agent's definition (design §5
 * "Bytes are pinned"): the same log yields the same request, whichever process builds it. The
 * settings are the agent's with the task's recorded ones (`task_created.settings`) on top, key by
 * key; `providerOptions` merge per provider, the task's keys winning.
 */

import type { TaskState } from "../../core/fold.ts";
import { STANDING_INSTRUCTIONS } from "../../core/standing-instructions.ts";
import type { ModelRequest, ToolSpec } from "../../ports/model.ts";
import type { Tool } from "../../ports/tool.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { ProviderOptions, TaskSettings, ToolChoice } from "../../protocol/task-event.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";
import type { Agent } from "../agent.ts";
import { outputJsonSchema } from "./structured-output.ts";

/** What a model request needs from an agent's definition, without absent keys. */
export interface RequestSettings {
  instructions?: string | ((state: TaskState) => string);
  /** Default true. */
  standingInstructions?: boolean;
  tools: readonly Tool[];
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: readonly string[];
  seed?: number;
  toolChoice?: ToolChoice;
  providerOptions?: ProviderOptions;
  /** The JSON Schema of the agent's output. */
  output?: { [key: string]: JsonValue };
}

export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.jsonSchema }));
}

let lastInstructions: string | undefined;
let lastSystem = STANDING_INSTRUCTIONS;

/**
 * The system text: standing instructions, then the agent's own (the last one built is reused).
 * Without the standing instructions (`standing` false) it is the agent's text alone.
 */
export function systemText(instructions: string | undefined, standing = true): string {
  if (!standing) return instructions ?? "";
  if (instructions === undefined || instructions === "") return STANDING_INSTRUCTIONS;
  if (instructions !== lastInstructions) {
    lastSystem = `${STANDING_INSTRUCTIONS}\n\n${instructions}`;
    lastInstructions = instructions;
  }
  return lastSystem;
}

/**
 * Whether a forced tool choice has been honoured: the model called a tool after the latest user
 * message (hook feedback, entries `hook:<seq>`, is not one). Then the request says `auto`, or a
 * forced choice would keep the agent from ever finishing.
 */
function forcedChoiceSpent(transcript: readonly TranscriptEntry[]): boolean {
  for (let i = transcript.length - 1; i >= 0; i--) {
    const entry = transcript[i];
    if (entry === undefined) continue;
    if (entry.role === "assistant" && entry.toolCalls.length > 0) return true;
    if (entry.role === "user" && !entry.entryId.startsWith("hook:")) return false;
  }
  return false;
}

function mergeProviderOptions(agent: ProviderOptions | undefined, task: ProviderOptions | undefined) {
  if (agent === undefined) return task;
  if (task === undefined) return agent;
  const merged: ProviderOptions = { ...agent };
  for (const [provider, options] of Object.entries(task)) merged[provider] = { ...agent[provider], ...options };
  return merged;
}

export function buildModelRequest(
  state: TaskState,
  settings: RequestSettings,
  specs: readonly ToolSpec[] = toolSpecs(settings.tools),
): ModelRequest {
  const instructions =
    typeof settings.instructions === "function" ? settings.instructions(state) : settings.instructions;
  const request: ModelRequest = {
    system: systemText(instructions, settings.standingInstructions !== false),
    transcript: state.transcript,
    tools: specs,
  };
  const task: TaskSettings | undefined = state.settings;
  const maxOutputTokens = task?.maxOutputTokens ?? settings.maxOutputTokens;
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  const temperature = task?.temperature ?? settings.temperature;
  if (temperature !== undefined) request.temperature = temperature;
  // The common request has no settings beyond these: it pays for nothing more.
  if (task === undefined && !hasMoreSettings(settings)) return request;
  const topP = task?.topP ?? settings.topP;
  if (topP !== undefined) request.topP = topP;
  const stopSequences = task?.stopSequences ?? settings.stopSequences;
  if (stopSequences !== undefined) request.stopSequences = stopSequences;
  const seed = task?.seed ?? settings.seed;
  if (seed !== undefined) request.seed = seed;
  const toolChoice = task?.toolChoice ?? settings.toolChoice;
  if (toolChoice !== undefined) {
    const forced = toolChoice === "required" || typeof toolChoice === "object";
    request.toolChoice = forced && forcedChoiceSpent(state.transcript) ? "auto" : toolChoice;
  }
  const providerOptions = mergeProviderOptions(settings.providerOptions, task?.providerOptions);
  if (providerOptions !== undefined) request.providerOptions = providerOptions;
  const output = task?.output ?? settings.output;
  if (output !== undefined) request.responseFormat = { type: "json", schema: output };
  return request;
}

function hasMoreSettings(settings: RequestSettings): boolean {
  return (
    settings.topP !== undefined ||
    settings.toolChoice !== undefined ||
    settings.stopSequences !== undefined ||
    settings.seed !== undefined ||
    settings.providerOptions !== undefined ||
    settings.output !== undefined
  );
}

/**
 * A tool choice that names a tool the request does not offer: the provider would refuse the call,
 * so the leg fails the task with this message instead.
 */
export function toolChoiceProblem(request: ModelRequest): string | undefined {
  const choice = request.toolChoice;
  if (typeof choice !== "object" || request.tools.some((tool) => tool.name === choice.toolName)) return undefined;
  const offered = request.tools.map((tool) => tool.name).join(", ");
  return `toolChoice names the tool ${JSON.stringify(choice.toolName)}, which the agent does not have (its tools: ${offered === "" ? "none" : offered})`;
}

/** What a model request needs from an agent's definition, without absent keys. */
export function requestSettings(agent: Agent, tools: readonly Tool[]): RequestSettings {
  const settings: RequestSettings = { tools };
  if (agent.instructions !== undefined) settings.instructions = agent.instructions;
  if (agent.standingInstructions !== undefined) settings.standingInstructions = agent.standingInstructions;
  if (agent.maxOutputTokens !== undefined) settings.maxOutputTokens = agent.maxOutputTokens;
  if (agent.temperature !== undefined) settings.temperature = agent.temperature;
  if (agent.topP !== undefined) settings.topP = agent.topP;
  if (agent.stopSequences !== undefined) settings.stopSequences = agent.stopSequences;
  if (agent.seed !== undefined) settings.seed = agent.seed;
  if (agent.toolChoice !== undefined) settings.toolChoice = agent.toolChoice;
  if (agent.providerOptions !== undefined) settings.providerOptions = agent.providerOptions;
  if (agent.output !== undefined) settings.output = outputJsonSchema(agent.output);
  return settings;
}
