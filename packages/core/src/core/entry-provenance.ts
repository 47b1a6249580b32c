/**
 * The provenance of each transcript entry, derived by the fold from the log alone (design §5,
 * docs/guide/security.md): which spans of an entry's bytes came from which lane, speaker or tool.
 * The fold records facts only; what counts as untrusted is decided when a call is classified
 * (`call-provenance.ts`), by the agent's policy.
 */
import type { HumanInputSource } from "../protocol/human-input.ts";
import type { Lane } from "../protocol/provenance.ts";
import type { ActorAssertion, TranscriptEntry } from "../protocol/transcript.ts";
import { fencedRange } from "./trust-framing.ts";

/** One span of an entry's content: `[start, end)` in UTF-16 units, and where it came from. */
export interface SpanProvenance {
  lane: Lane;
  start: number;
  end: number;
  /** The tool whose output (or error) it is. */
  tool?: string;
  /** The tool's output was fenced as untrusted (`untrustedOutput`, an MCP or external tool). */
  untrustedTool?: true;
  /** Who spoke, as the ingress asserted it. */
  actor?: ActorAssertion;
  /** The input it renders. */
  inputId?: string;
}

/**
 * What an entry is made of: `input` (applied inputs, a span each), `tool` (a result), `model`
 * (the model's own turn: neither trusted nor untrusted), `hook` (a hook's or the harness's
 * feedback), `summary` (a compaction; `fromUntrusted` when what it replaced held untrusted text,
 * and then the whole summary counts as untrusted).
 */
export interface EntryProvenance {
  origin: "input" | "tool" | "model" | "hook" | "summary";
  spans: SpanProvenance[];
  fromUntrusted?: true;
}

/** An input being applied, as the fold keeps it between its `applied` frame and its entry. */
export interface ApplyingInput {
  inputId: string;
  source: HumanInputSource;
  text?: string;
  actor?: ActorAssertion;
}

/** The model's turn: no spans. */
export const MODEL_PROVENANCE: EntryProvenance = Object.freeze({ origin: "model", spans: [] }) as EntryProvenance;

/** A tool result: the fenced text of an untrusted tool's, or the whole content of a trusted one's. */
export function toolProvenance(name: string, content: string): EntryProvenance {
  const fenced = fencedRange(content);
  if (fenced === undefined)
    return { origin: "tool", spans: [{ lane: "system", start: 0, end: content.length, tool: name }] };
  return { origin: "tool", spans: [{ lane: "external", ...fenced, tool: name, untrustedTool: true }] };
}

/** Hook feedback (or any machine text): one system span. */
export function hookProvenance(content: string): EntryProvenance {
  return { origin: "hook", spans: [{ lane: "system", start: 0, end: content.length }] };
}

/** A compaction's summary, untrusted as a whole when what it replaced held untrusted text. */
export function summaryProvenance(content: string, fromUntrusted: boolean): EntryProvenance {
  const entry: EntryProvenance = { origin: "summary", spans: [{ lane: "system", start: 0, end: content.length }] };
  if (fromUntrusted) entry.fromUntrusted = true;
  return entry;
}

/** What {@link provenanceAt} reads of a folded state (a `TaskState` has both). */
export interface ProvenanceSource {
  transcript: readonly TranscriptEntry[];
  inputProvenance?: { readonly [entryId: string]: EntryProvenance };
}

/**
 * The provenance of transcript entry `index`: a user entry's as the fold recorded it (an entry
 * with none, a hook's feedback, is system text), a tool result's from its tool and its fence, the
 * model's own turn none.
 */
export function provenanceAt(state: ProvenanceSource, index: number): EntryProvenance {
  const entry = state.transcript[index];
  if (entry === undefined || entry.role === "assistant") return MODEL_PROVENANCE;
  if (entry.role === "tool") return toolProvenance(entry.name, entry.content);
  return state.inputProvenance?.[entry.entryId] ?? hookProvenance(entry.content);
}

/** Whether an entry holds text that is untrusted whatever the policy (external lane, untrusted tool). */
export function holdsUntrusted(entry: EntryProvenance): boolean {
  return entry.fromUntrusted === true || entry.spans.some((span) => span.lane === "external" || span.untrustedTool);
}

/** The most seqs {@link untrustedSeqs} returns (what `child_task` v 3 records). */
export const MAX_UNTRUSTED_SEQS = 16;

/**
 * The seqs of the events whose transcript entries hold untrusted text whatever the policy (the
 * first 16, as `child_task` v 3 records them): what makes a sub-agent's answer untrusted to its parent. A
 * compaction's summary of untrusted text counts, so the mark survives compaction; so do the inputs
 * of `untrustedInputIds` (an objective its parent wrote from untrusted text).
 */
export function untrustedSeqs(
  state: ProvenanceSource & { transcriptSeqs: readonly number[] },
  untrustedInputIds: readonly string[] = [],
): number[] {
  const seqs: number[] = [];
  for (let i = 0; i < state.transcript.length && seqs.length < MAX_UNTRUSTED_SEQS; i++) {
    const entry = provenanceAt(state, i);
    const marked = entry.spans.some((span) => span.inputId !== undefined && untrustedInputIds.includes(span.inputId));
    if (marked || holdsUntrusted(entry)) seqs.push(state.transcriptSeqs[i] ?? 0);
  }
  return seqs;
}

/**
 * The spans of an entry that applies `inputs`: each input's rendered text is found after the
 * previous one's, from its start to the end of its text and of the frame that closes it (an
 * external input's whole fence; `</system-reminder>`), so a fence's header and a speaker label
 * belong to the span of the input they frame. An input whose text cannot be found (rewritten by
 * the renderer) takes the rest of the content: a wider span, never a lost one.
 */
export function inputProvenance(content: string, inputs: readonly ApplyingInput[]): EntryProvenance {
  const spans: SpanProvenance[] = [];
  let cursor = 0;
  for (const input of inputs) {
    const start = cursor;
    const end = input.source === "external" ? fenceEnd(content, cursor) : textEnd(content, input.text ?? "", cursor);
    if (end !== undefined) cursor = end;
    const span: SpanProvenance = { lane: input.source, start, end: end ?? content.length, inputId: input.inputId };
    if (input.actor !== undefined) span.actor = input.actor;
    spans.push(span);
  }
  return { origin: "input", spans };
}

/**
 * The end of the first fence at or after `from` (an external input is always fenced, and no other
 * text can hold `<untrusted-`: the ingress and the reminder frame defuse it).
 */
function fenceEnd(content: string, from: number): number | undefined {
  const open = content.indexOf("<untrusted-", from);
  if (open === -1) return undefined;
  const nonce = /^<untrusted-([0-9a-f]+(?:-[0-9]+)?)/.exec(content.slice(open, open + 64))?.[1];
  if (nonce === undefined) return undefined;
  const closing = `</untrusted-${nonce}>`;
  const close = content.indexOf(closing, open);
  return close === -1 ? undefined : close + closing.length;
}

/**
 * The end of an input's rendered text: where `text` occurs after `from` and is followed by the
 * entry's end, the blank line before the next input, or the frame that closes it.
 */
function textEnd(content: string, text: string, from: number): number | undefined {
  if (text === "") return from;
  for (let at = content.indexOf(text, from); at !== -1; at = content.indexOf(text, at + 1)) {
    let end = at + text.length;
    if (content.startsWith("\n</", end)) {
      const close = content.indexOf(">", end);
      if (close !== -1) end = close + 1;
    } else if (end !== content.length && !content.startsWith("\n\n", end)) continue;
    return end;
  }
  return undefined;
}
