/**
 * The digest of a model request (recorded on `model_turn` v 2): SHA-256 of the canonical JSON of
 * everything the model receives — the system text, the tool specs, the settings (every model
 * setting, the tool choice, the response format) and the transcript as the model sees it (no
 * entry ids, which are the log's bookkeeping; attachments by their digests, which name their
 * bytes). A replay computes the same digest over the request it builds and compares, part by part.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { RequestDigest } from "../../protocol/task-event.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";
import { sha256Hex } from "../tools/approvals.ts";

/** The parts of a request the digest covers besides its transcript, in the canonical form hashed. */
export interface RequestParts {
  system: string;
  tools: JsonValue;
  settings: JsonValue;
}

/** What the model receives of one transcript entry: the entry without its id. */
export function modelView(entry: TranscriptEntry): JsonValue {
  if (entry.role !== "user") return entry as unknown as JsonValue;
  const view: { [key: string]: JsonValue } = { role: "user", content: entry.content };
  if (entry.parts !== undefined) view.parts = entry.parts as unknown as JsonValue;
  return view;
}

/** The request's parts other than the transcript, as the digest sees them. */
export function requestParts(request: ModelRequest): RequestParts {
  const settings: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(request)) {
    if (key === "system" || key === "transcript" || key === "tools" || key === "blobs" || value === undefined) continue;
    settings[key] = value as JsonValue;
  }
  return { system: request.system, tools: request.tools as unknown as JsonValue, settings };
}

// Entries never change once made: each is hashed once, whichever request carries it.
const entryDigests = new WeakMap<TranscriptEntry, Promise<string>>();

function entryDigest(entry: TranscriptEntry): Promise<string> {
  let digest = entryDigests.get(entry);
  if (digest === undefined) {
    digest = sha256Hex(canonicalJson(modelView(entry)));
    entryDigests.set(entry, digest);
  }
  return digest;
}

// The system text, tools and settings rarely change between turns: their last digests are kept.
const toolDigests = new WeakMap<object, Promise<string>>();
let lastText: { text: string; digest: Promise<string> } | undefined;
let lastSettings: { text: string; digest: Promise<string> } | undefined;

function textDigest(text: string, last: { text: string; digest: Promise<string> } | undefined) {
  return last !== undefined && last.text === text ? last : { text, digest: sha256Hex(text) };
}

/**
 * The digests of a request. The transcript is read when this is called (a copy of its entries is
 * taken at once), so the caller may stream the request while the digest is computed.
 */
export async function digestRequest(request: ModelRequest): Promise<RequestDigest> {
  const entries = request.transcript.slice();
  const parts = requestParts(request);
  lastText = textDigest(parts.system, lastText);
  lastSettings = textDigest(canonicalJson(parts.settings), lastSettings);
  let toolsDigest = toolDigests.get(request.tools);
  if (toolsDigest === undefined) {
    toolsDigest = sha256Hex(canonicalJson(parts.tools));
    toolDigests.set(request.tools, toolsDigest);
  }
  const [system, tools, settings, each] = await Promise.all([
    lastText.digest,
    toolsDigest,
    lastSettings.digest,
    Promise.all(entries.map(entryDigest)),
  ]);
  const transcript = await sha256Hex(each.join("\n"));
  const digest = await sha256Hex(canonicalJson({ system, tools, settings, transcript }));
  return { digest, system, tools, settings, transcript, entries: entries.length };
}
