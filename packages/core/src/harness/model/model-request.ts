/**
 * The model request as a pure function of the folded state and the agent's definition (design §5
 * "Bytes are pinned"): the same log yields the same request, whichever process builds it. The
 * model settings are the agent's with the task's recorded ones (`task_created.settings`) on top
 * (`mergeModelSettings`: key by key; `providerOptions` per provider, the task's keys winning).
 */

import type { TaskState } from "../../core/fold.ts";
import { ATTACHMENT_INSTRUCTIONS, STANDING_INSTRUCTIONS } from "../../core/standing-instructions.ts";
import type { ModelRequest, ToolSpec } from "../../ports/model.ts";
import type { Store } from "../../ports/store.ts";
import type { Tool } from "../../ports/tool.ts";
import { BlobNotFoundError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import { type ModelSettings, mergeModelSettings } from "../../protocol/model-settings.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";
import type { Agent } from "../agent.ts";
import { outputJsonSchema } from "./structured-output.ts";

/** What a model request needs from an agent's definition, without absent keys. */
export interface RequestSettings {
  instructions?: string | ((state: TaskState) => string);
  /** Default true. */
  standingInstructions?: boolean;
  tools: readonly Tool[];
  /** The agent's model settings, without absent keys (absent: none): the task's recorded ones go on top. */
  defaults?: ModelSettings;
  /** The JSON Schema of the agent's output. */
  output?: { [key: string]: JsonValue };
}

export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.jsonSchema }));
}

let lastInstructions: string | undefined;
let lastSystem = STANDING_INSTRUCTIONS;
let lastAttached: boolean | undefined;
const STANDING_WITH_ATTACHMENTS = `${STANDING_INSTRUCTIONS}\n${ATTACHMENT_INSTRUCTIONS}`;

/**
 * The system text: standing instructions (with the line on attachments when the transcript has
 * any), then the agent's own (the last one built is reused). Without the standing instructions
 * (`standing` false) it is the agent's text alone: no line on attachments either.
 */
export function systemText(instructions: string | undefined, standing = true, attached = false): string {
  if (!standing) return instructions ?? "";
  const head = attached ? STANDING_WITH_ATTACHMENTS : STANDING_INSTRUCTIONS;
  if (instructions === undefined || instructions === "") return head;
  if (instructions !== lastInstructions || attached !== lastAttached) {
    lastSystem = `${head}\n\n${instructions}`;
    lastInstructions = instructions;
    lastAttached = attached;
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

/** The attachments of a request: whether the transcript has any, and the bytes of those stored. */
export interface RequestContent {
  attached: boolean;
  blobs: ReadonlyMap<string, Uint8Array>;
}

export function buildModelRequest(
  state: TaskState,
  settings: RequestSettings,
  specs: readonly ToolSpec[] = toolSpecs(settings.tools),
  content?: RequestContent,
): ModelRequest {
  const instructions =
    typeof settings.instructions === "function" ? settings.instructions(state) : settings.instructions;
  const request: ModelRequest = {
    system: systemText(instructions, settings.standingInstructions !== false, content?.attached === true),
    transcript: state.transcript,
    tools: specs,
  };
  if (content !== undefined && content.blobs.size > 0) request.blobs = content.blobs;
  const task = state.settings;
  // A task without settings of its own (the common one) takes the agent's as they are: no merge.
  if (task === undefined) Object.assign(request, settings.defaults);
  else mergeModelSettings(settings.defaults, task, request);
  const toolChoice = request.toolChoice;
  if (toolChoice !== undefined) {
    const forced = toolChoice === "required" || typeof toolChoice === "object";
    if (forced && forcedChoiceSpent(state.transcript)) request.toolChoice = "auto";
  }
  const output = task?.output ?? settings.output;
  if (output !== undefined) request.responseFormat = { type: "json", schema: output };
  return request;
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
  const settings: RequestSettings = { tools, defaults: mergeModelSettings(agent, undefined) };
  if (agent.instructions !== undefined) settings.instructions = agent.instructions;
  if (agent.standingInstructions !== undefined) settings.standingInstructions = agent.standingInstructions;
  if (agent.output !== undefined) settings.output = outputJsonSchema(agent.output);
  return settings;
}

/**
 * The blobs a request needs, read from the store once per leg (design §5 "Images and files"):
 * only user entries with `parts` reference any, and only entries appended since the last call are
 * scanned, so a task without attachments pays one identity and one length check per turn. After a
 * compaction replaced the transcript the set is rebuilt, so a request carries exactly the blobs
 * its transcript references — the same set whichever process builds it. A request keeps the map
 * it was given: new blobs go into a new map, never into one a request (or a hook) holds.
 */
export class RequestBlobs {
  readonly #store: Store;
  #content: RequestContent = { attached: false, blobs: new Map() };
  #scanned: readonly TranscriptEntry[] | undefined;
  #count = 0;

  constructor(store: Store) {
    this.#store = store;
  }

  /** The blobs of `transcript` when nothing was added since the last `resolve`, else `undefined`. */
  current(transcript: readonly TranscriptEntry[]): RequestContent | undefined {
    return transcript === this.#scanned && transcript.length === this.#count ? this.#content : undefined;
  }

  /** The bytes of every blob `transcript` references; `BlobNotFound` if the store lacks one. */
  async resolve(transcript: readonly TranscriptEntry[]): Promise<RequestContent> {
    let { attached, blobs } = this.#content;
    // Another array (a refolded state, a compaction): scan it whole, reusing the bytes already read.
    const known = blobs;
    if (transcript !== this.#scanned || transcript.length < this.#count) {
      this.#scanned = transcript;
      this.#count = 0;
      attached = false;
      blobs = new Map();
    }
    let added: Map<string, Uint8Array> | undefined;
    for (; this.#count < transcript.length; this.#count++) {
      const entry = transcript[this.#count];
      if (entry?.role !== "user" || entry.parts === undefined) continue;
      for (const part of entry.parts) {
        if (part.type !== "text") attached = true;
        if (!("digest" in part) || blobs.has(part.digest) || added?.has(part.digest) === true) continue;
        const bytes =
          known.get(part.digest) ??
          (this.#store.getBlob === undefined ? undefined : await this.#store.getBlob(part.digest));
        if (bytes === undefined) throw new BlobNotFoundError(part.digest);
        added ??= new Map(blobs);
        added.set(part.digest, bytes);
      }
    }
    if (added !== undefined) blobs = added;
    if (attached !== this.#content.attached || blobs !== this.#content.blobs) this.#content = { attached, blobs };
    return this.#content;
  }
}
