/**
 * The model request as a pure function of the folded state and the agent's definition (design §5
 * "Bytes are pinned"): the same log yields the same request, whichever process builds it.
 */

import type { TaskState } from "../../core/fold.ts";
import { ATTACHMENT_INSTRUCTIONS, STANDING_INSTRUCTIONS } from "../../core/standing-instructions.ts";
import type { ModelRequest, ToolSpec } from "../../ports/model.ts";
import type { Store } from "../../ports/store.ts";
import type { Tool } from "../../ports/tool.ts";
import { BlobNotFoundError } from "../../protocol/errors.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";

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
let lastAttached: boolean | undefined;
const STANDING_WITH_ATTACHMENTS = `${STANDING_INSTRUCTIONS}\n${ATTACHMENT_INSTRUCTIONS}`;

/**
 * The system text: standing instructions (with the line on attachments when the transcript has
 * any), then the agent's own (the last one built is reused).
 */
export function systemText(instructions: string | undefined, attached = false): string {
  const standing = attached ? STANDING_WITH_ATTACHMENTS : STANDING_INSTRUCTIONS;
  if (instructions === undefined || instructions === "") return standing;
  if (instructions !== lastInstructions || attached !== lastAttached) {
    lastSystem = `${standing}\n\n${instructions}`;
    lastInstructions = instructions;
    lastAttached = attached;
  }
  return lastSystem;
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
  const request: ModelRequest = {
    system: systemText(settings.instructions, content?.attached === true),
    transcript: state.transcript,
    tools: specs,
  };
  if (content !== undefined && content.blobs.size > 0) request.blobs = content.blobs;
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
