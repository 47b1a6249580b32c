/**
 * Classifying a model turn's tool calls by the provenance of the context the model saw
 * (docs/guide/security.md): `clean`, `exposed` or `tainted`, and the untrusted spans that says
 * so. Pure: the index is built from the folded transcript and its provenance only (plus the
 * agent's own instructions, which count as trusted text), so a classification and the record made
 * from it are functions of the log and the agent's definition.
 */
import type { JsonValue } from "../protocol/json.ts";
import type { CallClassification, HeldSpan } from "../protocol/provenance.ts";
import type { TranscriptEntry } from "../protocol/transcript.ts";
import { type AttachedPart, attachmentLabel, attachmentsOf, attachmentText } from "./attachment-provenance.ts";
import { type EntryProvenance, type ProvenanceSource, provenanceAt, type SpanProvenance } from "./entry-provenance.ts";
import { inlineUntrusted } from "./neutralizers.ts";
import { type QuarantineTrust, type ReaderFields, trustedReaderValues } from "./quarantine.ts";
import { normalizeWithMap, type TaintFinding, TaintIndex, type TaintOptions } from "./taint.ts";

/** How a context is indexed: the taint options, and whether unverified speakers count as untrusted. */
export interface ProvenanceOptions extends TaintOptions {
  /** Text of an unverified speaker on the user or operator lane counts as untrusted. Default false. */
  unverifiedUntrusted?: boolean;
  /**
   * Inputs whose words count as untrusted whatever their lane: a sub-agent's objective its parent
   * wrote from untrusted text (the task metadata key `untrustedInput`).
   */
  untrustedInputIds?: readonly string[];
  /**
   * The agent's quarantined readers, by tool name, with their answers' fields: a reader's answer
   * is named as the source of what it carries (over the text it read), and its closed fields'
   * values count as trusted as `quarantine` says ({@link trustedReaderValues}).
   */
  readers?: { readonly [tool: string]: ReaderFields };
  /** What the policy trusts of a reader's answer (`ProvenancePolicy.quarantine`). */
  quarantine?: QuarantineTrust;
}

/**
 * The `task_created` metadata key naming an input whose words are untrusted whatever its lane:
 * set on a child task whose parent's `delegate` call carried untrusted text into its objective.
 */
export const UNTRUSTED_INPUT_KEY = "untrustedInput";

/** The input ids a task's metadata marks untrusted ({@link UNTRUSTED_INPUT_KEY}). */
export function untrustedInputIdsOf(metadata: { readonly [key: string]: JsonValue } | undefined): string[] {
  const id = metadata?.[UNTRUSTED_INPUT_KEY];
  return typeof id === "string" ? [id] : [];
}

/** What the index reads of a folded state (a `TaskState` has all of it). */
export interface ProvenanceContext extends ProvenanceSource {
  transcriptSeqs: readonly number[];
}

/** A call's classification and, for an exposed or tainted one, the spans it rests on (at most 8). */
export interface ClassifiedCall {
  classification: CallClassification;
  spans: HeldSpan[];
}

interface IndexedSpan {
  seq: number;
  text: string;
  span: SpanProvenance;
}

/** An entry's attachment as indexed: whether it is untrusted, the span it belongs to, its text if any. */
interface IndexedAttachment {
  untrusted: boolean;
  span: SpanProvenance;
  /** The text the model reads of it; absent for an opaque one (an image, a PDF, a URL). */
  text?: string;
  label: string;
}

const NO_BLOBS: ReadonlyMap<string, Uint8Array> = new Map();

const MAX_SPANS = 8;
const EXCERPT_CONTEXT = 80;
const EXCERPT_MAX = 300;
// In code points; at most 191 of them is at most 382 UTF-16 units, under the schema's 400.
const TEXT_MAX = 190;

function contentOf(entry: TranscriptEntry): string | undefined {
  return entry.role === "assistant" ? undefined : entry.content;
}

/** Whether `input` has a value a call could carry from content (a string or a number) outside `ignore`. */
function hasValues(input: JsonValue, ignore: readonly string[], path = ""): boolean {
  if (ignore.some((at) => path === at || (path !== "" && path.startsWith(`${at}/`)))) return false;
  if (typeof input === "string" || typeof input === "number") return true;
  if (Array.isArray(input)) return input.some((item, i) => hasValues(item, ignore, `${path}/${i}`));
  if (input !== null && typeof input === "object")
    return Object.entries(input).some(([key, item]) =>
      hasValues(item, ignore, `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`),
    );
  return false;
}

/**
 * The spans of `entries` that count as untrusted under `options`: the external lane, an untrusted
 * tool's output, a summary of untrusted text, and with `unverifiedUntrusted` an unverified
 * speaker's words on the user or operator lane.
 */
function isUntrusted(span: SpanProvenance, entry: EntryProvenance, options: ProvenanceOptions): boolean {
  if (entry.fromUntrusted === true || span.lane === "external" || span.untrustedTool === true) return true;
  if (span.inputId !== undefined && options.untrustedInputIds?.includes(span.inputId) === true) return true;
  return (
    options.unverifiedUntrusted === true &&
    (span.lane === "user" || span.lane === "operator") &&
    span.actor !== undefined &&
    !span.actor.verified
  );
}

/**
 * The untrusted and trusted text of a transcript, indexed for classification. A leg keeps one and
 * {@link ProvenanceIndex.sync}s it before each tool phase: entries are indexed once each, and a
 * transcript that is not a continuation of the indexed one (a compaction) is indexed anew.
 */
export class ProvenanceIndex {
  readonly #options: ProvenanceOptions;
  readonly #trusted: readonly string[];
  #taint: TaintIndex;
  #spans: IndexedSpan[] = [];
  /** The entries indexed, in order (the same objects as the transcript's). */
  #entries: TranscriptEntry[] = [];
  /**
   * Entries seen before the first untrusted span, not indexed yet: a context with no untrusted
   * text classifies every call clean, so a task that never reads any pays for no index.
   */
  #waiting:
    | Array<{ content: string; provenance: EntryProvenance; seq: number; attached: readonly IndexedAttachment[] }>
    | undefined = [];
  /** The spans (indices into `#spans`) of untrusted attachments that cannot be read as text. */
  #opaque: number[] = [];

  /** `trusted`: text outside the log that counts as trusted (the agent's instructions). */
  constructor(options: ProvenanceOptions = {}, trusted: readonly string[] = []) {
    this.#options = options;
    this.#trusted = trusted;
    this.#taint = this.#fresh();
  }

  #fresh(): TaintIndex {
    const index = new TaintIndex(this.#options);
    for (const text of this.#trusted) index.addTrusted(text);
    return index;
  }

  /**
   * Index the entries of `context` before `upTo` (default: all of them): the context a model turn
   * saw. `blobs` are the bytes of its attachments (the model request's): a text file's text is
   * indexed for its lane; an attachment not at hand counts as opaque.
   */
  sync(
    context: ProvenanceContext,
    upTo = context.transcript.length,
    blobs: ReadonlyMap<string, Uint8Array> = NO_BLOBS,
  ): this {
    const known = this.#entries;
    const { transcript } = context;
    const continues =
      known.length <= upTo &&
      (known.length === 0 || (known[0] === transcript[0] && known[known.length - 1] === transcript[known.length - 1]));
    if (!continues) {
      this.#taint = this.#fresh();
      this.#spans = [];
      this.#opaque = [];
      this.#entries = [];
      this.#waiting = [];
    }
    for (let i = this.#entries.length; i < upTo; i++) {
      const entry = transcript[i] as TranscriptEntry;
      this.#entries.push(entry);
      const content = contentOf(entry);
      if (content === undefined) continue;
      const provenance = provenanceAt(context, i);
      const attached =
        entry.role === "user" && entry.parts !== undefined
          ? this.#attachments(attachmentsOf(content, entry.parts, provenance), provenance, blobs)
          : [];
      this.#add(content, provenance, context.transcriptSeqs[i] ?? 0, attached);
    }
    return this;
  }

  /**
   * An entry's attachments under the options: each is untrusted when the input it came with is
   * (one with no input found is untrusted when anything in its entry is: never less than its
   * words), with its text when it is a text file at hand.
   */
  #attachments(
    parts: readonly AttachedPart[],
    provenance: EntryProvenance,
    blobs: ReadonlyMap<string, Uint8Array>,
  ): IndexedAttachment[] {
    const firstUntrusted = provenance.spans.find((span) => isUntrusted(span, provenance, this.#options));
    return parts.map(({ attachment, span }) => {
      const untrusted =
        span === undefined ? firstUntrusted !== undefined : isUntrusted(span, provenance, this.#options);
      const owner = span ?? firstUntrusted ?? { lane: "system", start: 0, end: 0 };
      const text = attachmentText(attachment, blobs);
      const indexed: IndexedAttachment = { untrusted, span: owner, label: attachmentLabel(attachment) };
      if (text !== undefined) indexed.text = text;
      return indexed;
    });
  }

  #add(content: string, provenance: EntryProvenance, seq: number, attached: readonly IndexedAttachment[]): void {
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      if (
        !provenance.spans.some((span) => isUntrusted(span, provenance, this.#options)) &&
        !attached.some((part) => part.untrusted)
      ) {
        waiting.push({ content, provenance, seq, attached });
        return;
      }
      this.#waiting = undefined;
      for (const entry of waiting) this.#index(entry.content, entry.provenance, entry.seq, entry.attached);
    }
    this.#index(content, provenance, seq, attached);
  }

  #index(content: string, provenance: EntryProvenance, seq: number, attached: readonly IndexedAttachment[]): void {
    const untrusted = provenance.spans
      .filter((span) => isUntrusted(span, provenance, this.#options))
      .map((span) => (provenance.fromUntrusted === true ? { ...span, start: 0, end: content.length } : span))
      .sort((a, b) => a.start - b.start);
    let cursor = 0;
    for (const span of untrusted) {
      if (span.start > cursor) this.#taint.addTrusted(content.slice(cursor, span.start));
      const text = content.slice(span.start, span.end);
      const fields = this.#readerFields(span);
      this.#taint.addUntrusted(text, this.#spans.length, fields !== undefined);
      this.#spans.push({ seq, text, span });
      if (fields !== undefined)
        for (const value of trustedReaderValues(fields, text, this.#options.quarantine)) this.#taint.addTrusted(value);
      cursor = Math.max(cursor, span.end);
    }
    if (cursor < content.length) this.#taint.addTrusted(content.slice(cursor));
    for (const part of attached) {
      if (part.text !== undefined && !part.untrusted) this.#taint.addTrusted(part.text);
      else if (part.text !== undefined) {
        // A text file is read like the input's own words: its runs and tokens taint.
        this.#taint.addUntrusted(part.text, this.#spans.length);
        this.#spans.push({ seq, text: part.text, span: part.span });
      } else if (part.untrusted) {
        this.#opaque.push(this.#spans.length);
        this.#spans.push({ seq, text: part.label, span: part.span });
      }
    }
  }

  /** The answer fields of a quarantined reader whose result `span` is, if it is one. */
  #readerFields(span: SpanProvenance): ReaderFields | undefined {
    const readers = this.#options.readers;
    if (readers === undefined || span.tool === undefined || span.untrustedTool !== true) return undefined;
    return Object.hasOwn(readers, span.tool) ? readers[span.tool] : undefined;
  }

  /** Whether the indexed context holds untrusted content (text, or an untrusted opaque attachment). */
  get exposed(): boolean {
    return this.#taint.exposed || this.#opaque.length > 0;
  }

  /**
   * Classify a call's `input` against the indexed context: `tainted` with the spans its arguments
   * carry text of, `exposed` with the latest untrusted spans (when `withExposure`), or `clean`.
   * `ignore`: JSON Pointers of values not counted (a tool's `untaintedInputs`). After an untrusted
   * opaque attachment (an image on the external lane) a call with any value counts as tainted,
   * resting on the attachments: what the model read in it cannot be matched, so it may be anywhere.
   */
  classify(input: JsonValue, withExposure = true, ignore: readonly string[] = []): ClassifiedCall {
    if (!this.exposed) return { classification: "clean", spans: [] };
    const findings = this.#taint.taint(input, MAX_SPANS, ignore);
    if (findings.length > 0) return { classification: "tainted", spans: findings.map((f) => this.#held(f)) };
    if (this.#opaque.length > 0 && hasValues(input, ignore)) {
      const spans = this.#opaque
        .slice(-MAX_SPANS)
        .map((ref) => this.#spans[ref] as IndexedSpan)
        .map((s) => this.#described(s, excerptAt(s.text, 0, 0)));
      return { classification: "tainted", spans };
    }
    const spans = withExposure
      ? this.#spans
          .slice(-MAX_SPANS)
          .filter((s) => s.text.trim() !== "")
          .map((s) => this.#described(s, excerptAt(s.text, 0, 0)))
      : [];
    return { classification: "exposed", spans };
  }

  #described(indexed: IndexedSpan, excerpt: string): HeldSpan {
    const { span, seq } = indexed;
    const held: HeldSpan = { seq, lane: span.lane };
    if (span.tool !== undefined) held.tool = span.tool;
    if (span.untrustedTool === true) held.untrustedTool = true;
    if (span.actor !== undefined) held.actor = { ...span.actor };
    if (excerpt !== "") held.excerpt = excerpt;
    return held;
  }

  #held(finding: TaintFinding): HeldSpan {
    const indexed = this.#spans[finding.ref] as IndexedSpan;
    const normalized = normalizeWithMap(indexed.text, finding.match !== "substring");
    const at = normalized.text.indexOf(finding.text);
    const start = at === -1 ? 0 : (normalized.map[at] ?? 0);
    const end = at === -1 ? 0 : (normalized.map[at + finding.text.length - 1] ?? start) + 1;
    return {
      ...this.#described(indexed, excerptAt(indexed.text, start, end)),
      argument: finding.argument,
      match: finding.match,
      text: inlineUntrusted(finding.text, TEXT_MAX),
    };
  }
}

/** The text around `[start, end)`, on one line, with `…` where it was cut. */
function excerptAt(text: string, start: number, end: number): string {
  const from = Math.max(0, start - EXCERPT_CONTEXT);
  const to = Math.min(text.length, Math.max(end, start) + EXCERPT_CONTEXT);
  const cut = `${from > 0 ? "…" : ""}${text.slice(from, to)}${to < text.length ? "…" : ""}`;
  return inlineUntrusted(cut, EXCERPT_MAX);
}

/**
 * Classify one call of a model turn from a folded state, as a pure function: the context is the
 * transcript before the assistant entry that made the call (all of it when that entry is not
 * folded yet, as in the turn that makes it). For one-off use; a leg keeps a `ProvenanceIndex` and extends it turn by turn.
 */
export function classifyToolCall(
  state: ProvenanceContext,
  call: { callId: string; input: JsonValue },
  options: ProvenanceOptions = {},
  trusted: readonly string[] = [],
  blobs: ReadonlyMap<string, Uint8Array> = NO_BLOBS,
): ClassifiedCall {
  return new ProvenanceIndex(options, trusted).sync(state, contextEnd(state, call.callId), blobs).classify(call.input);
}

/** Where the context of a call ends: its assistant entry, or the transcript's end when it has none yet. */
export function contextEnd(state: ProvenanceContext, callId: string): number {
  // From the end: a call being decided or recovered is in one of the last turns.
  for (let i = state.transcript.length - 1; i >= 0; i--) {
    const entry = state.transcript[i];
    if (entry?.role === "assistant" && entry.toolCalls.some((call) => call.callId === callId)) return i;
  }
  return state.transcript.length;
}
