/**
 * The digest of a model request (recorded on `model_turn` v 2): SHA-256 of the canonical JSON of
 * everything the model receives — the system text, the tool specs, the settings (every model
 * setting, the tool choice, the response format) and the transcript as the model sees it (no
 * entry ids, which are the log's bookkeeping; attachments by their digests, which name their
 * bytes). A replay computes the same digest over the request it builds and compares, part by part.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { nextMacrotask } from "../../internal/macrotask.ts";
import { Sha256, sha256HexNow } from "../../internal/sha256.ts";
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

/**
 * Texts at least this long are hashed by Web Crypto, off this thread and natively; shorter ones
 * (nearly every entry and part) here, synchronously, where a hop to Web Crypto's thread would cost
 * more than the hashing.
 */
const NATIVE_FROM_CHARS = 64 * 1024;

/** The SHA-256 of `text` as hex: now for a short text, by Web Crypto for a long one. */
function textSha256(text: string): string | Promise<string> {
  return text.length < NATIVE_FROM_CHARS ? sha256HexNow(text) : sha256Hex(text);
}

// Entries never change once made: each is hashed once, whichever request carries it.
const entryDigests = new WeakMap<TranscriptEntry, string | Promise<string>>();

function entryDigest(entry: TranscriptEntry): string | Promise<string> {
  let digest = entryDigests.get(entry);
  if (digest === undefined) {
    digest = textSha256(canonicalJson(modelView(entry)));
    entryDigests.set(entry, digest);
    // Settled, the digest is kept as its text, so later requests need not await it.
    if (typeof digest !== "string")
      void digest.then(
        (hex) => entryDigests.set(entry, hex),
        () => undefined,
      );
  }
  return digest;
}

/**
 * Where the transcript's digest got to, per transcript array: the text hashed is its entries'
 * digests joined by newlines, so the hasher after the first `count` of them (each followed by a
 * newline) is continued by the next request instead of hashing them all again. A leg's transcript
 * grows by appending to the same array (compaction makes a new one), so the prefix is the same
 * while the array is and its first entry and the one at `count - 1` are still `first` and `last`.
 */
interface TranscriptPrefix {
  count: number;
  first: TranscriptEntry | undefined;
  last: TranscriptEntry | undefined;
  hasher: Sha256;
}
const transcriptPrefixes = new WeakMap<readonly TranscriptEntry[], TranscriptPrefix>();

/**
 * The digest of `array`'s entries' digests joined by newlines, continuing the prefix hashed for
 * it. Everything it needs of `array` is read before its first await: the caller may go on growing
 * the transcript while this runs.
 */
async function transcriptDigest(array: readonly TranscriptEntry[]): Promise<string> {
  const count = array.length;
  const first = array[0];
  const known = transcriptPrefixes.get(array);
  const usable =
    known !== undefined &&
    known.count <= count &&
    (known.count === 0 || (first === known.first && array[known.count - 1] === known.last));
  const from = usable ? known.count : 0;
  // Only the entries after the prefix are copied: a turn's few, not the whole history each time.
  const fresh = array.slice(from, count);
  const beforeLast = array[count - 2];
  const hasher = usable ? known.hasher.copy() : new Sha256();
  const each = await entryDigestsOf(fresh);
  if (each.length === 0 && from === 0) return sha256HexNow("");
  // All but the last entry's digest are followed by a newline: that prefix is kept for next time.
  for (let i = 0; i < each.length - 1; i++) hasher.updateText(`${each[i] as string}\n`);
  if (each.length > 0) {
    transcriptPrefixes.set(array, { count: count - 1, first, last: beforeLast, hasher: hasher.copy() });
    hasher.updateText(each[each.length - 1] as string);
    return hasher.hex();
  }
  // No entry since the prefix: it already holds the newline after the last entry, so start over.
  return sha256HexNow((await entryDigestsOf(array.slice(0, count))).join("\n"));
}

/**
 * Entries hashed in one go: a turn adds a few, hashed at once. A leg's first request on a long
 * task (a resume in a fresh process) has thousands unhashed, tens of milliseconds of work: that
 * starts after the model call has gone out, in slices with the event loop's turns between them,
 * so neither the request nor the other legs of the process wait for it.
 */
const DIGEST_SLICE = 256;

/** The digests of `entries`, in order; a long list in slices, the first after a turn of the loop. */
async function entryDigestsOf(entries: readonly TranscriptEntry[]): Promise<string[]> {
  const pending: Array<string | Promise<string>> = [];
  for (let i = 0; i < entries.length; i++) {
    if (i % DIGEST_SLICE === 0 && entries.length > DIGEST_SLICE) await nextMacrotask();
    pending.push(entryDigest(entries[i] as TranscriptEntry));
  }
  return pending.some((d) => typeof d !== "string") ? Promise.all(pending) : (pending as string[]);
}

// The system text, tools and settings rarely change between turns: their last digests are kept.
const toolDigests = new WeakMap<object, string | Promise<string>>();
let lastText: { text: string; digest: string | Promise<string> } | undefined;
let lastSettings: { text: string; digest: string | Promise<string> } | undefined;

function textDigest(text: string, last: { text: string; digest: string | Promise<string> } | undefined) {
  return last !== undefined && last.text === text ? last : { text, digest: textSha256(text) };
}

/**
 * The digests of a request. The transcript is read when this is called (its length, and the
 * entries not hashed before), so the caller may stream the request while the digest is computed.
 */
export async function digestRequest(request: ModelRequest): Promise<RequestDigest> {
  const entries = request.transcript.length;
  const parts = requestParts(request);
  lastText = textDigest(parts.system, lastText);
  lastSettings = textDigest(canonicalJson(parts.settings), lastSettings);
  let toolsDigest = toolDigests.get(request.tools);
  if (toolsDigest === undefined) {
    toolsDigest = textSha256(canonicalJson(parts.tools));
    toolDigests.set(request.tools, toolsDigest);
  }
  // Taken before the first await: a concurrent request may replace the last digests meanwhile.
  const [systemDone, settingsDone] = [lastText.digest, lastSettings.digest];
  const transcriptDone = transcriptDigest(request.transcript);
  const system = await systemDone;
  const tools = await toolsDigest;
  const settings = await settingsDone;
  const transcript = await transcriptDone;
  const digest = sha256HexNow(canonicalJson({ system, tools, settings, transcript }));
  return { digest, system, tools, settings, transcript, entries };
}
