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
import { type EntryProvenance, type ProvenanceSource, provenanceAt, type SpanProvenance } from "./entry-provenance.ts";
import { inlineUntrusted } from "./neutralizers.ts";
import { normalizeWithMap, type TaintFinding, TaintIndex, type TaintOptions } from "./taint.ts";

/** How a context is indexed: the taint options, and whether unverified speakers count as untrusted. */
export interface ProvenanceOptions extends TaintOptions {
  /** Text of an unverified speaker on the user or operator lane counts as untrusted. Default false. */
  unverifiedUntrusted?: boolean;
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

const MAX_SPANS = 8;
const EXCERPT_CONTEXT = 80;
const EXCERPT_MAX = 300;
// In code points; at most 191 of them is at most 382 UTF-16 units, under the schema's 400.
const TEXT_MAX = 190;

function contentOf(entry: TranscriptEntry): string | undefined {
  return entry.role === "assistant" ? undefined : entry.content;
}

/**
 * The spans of `entries` that count as untrusted under `options`: the external lane, an untrusted
 * tool's output, a summary of untrusted text, and with `unverifiedUntrusted` an unverified
 * speaker's words on the user or operator lane.
 */
function isUntrusted(span: SpanProvenance, entry: EntryProvenance, options: ProvenanceOptions): boolean {
  if (entry.fromUntrusted === true || span.lane === "external" || span.untrustedTool === true) return true;
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
  #waiting: Array<{ content: string; provenance: EntryProvenance; seq: number }> | undefined = [];

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

  /** Index the entries of `context` before `upTo` (default: all of them): the context a model turn saw. */
  sync(context: ProvenanceContext, upTo = context.transcript.length): this {
    const known = this.#entries;
    const { transcript } = context;
    const continues =
      known.length <= upTo &&
      (known.length === 0 || (known[0] === transcript[0] && known[known.length - 1] === transcript[known.length - 1]));
    if (!continues) {
      this.#taint = this.#fresh();
      this.#spans = [];
      this.#entries = [];
      this.#waiting = [];
    }
    for (let i = this.#entries.length; i < upTo; i++) {
      const entry = transcript[i] as TranscriptEntry;
      this.#entries.push(entry);
      const content = contentOf(entry);
      if (content === undefined) continue;
      this.#add(content, provenanceAt(context, i), context.transcriptSeqs[i] ?? 0);
    }
    return this;
  }

  #add(content: string, provenance: EntryProvenance, seq: number): void {
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      if (!provenance.spans.some((span) => isUntrusted(span, provenance, this.#options))) {
        waiting.push({ content, provenance, seq });
        return;
      }
      this.#waiting = undefined;
      for (const entry of waiting) this.#index(entry.content, entry.provenance, entry.seq);
    }
    this.#index(content, provenance, seq);
  }

  #index(content: string, provenance: EntryProvenance, seq: number): void {
    const untrusted = provenance.spans
      .filter((span) => isUntrusted(span, provenance, this.#options))
      .map((span) => (provenance.fromUntrusted === true ? { ...span, start: 0, end: content.length } : span))
      .sort((a, b) => a.start - b.start);
    let cursor = 0;
    for (const span of untrusted) {
      if (span.start > cursor) this.#taint.addTrusted(content.slice(cursor, span.start));
      const text = content.slice(span.start, span.end);
      this.#taint.addUntrusted(text, this.#spans.length);
      this.#spans.push({ seq, text, span });
      cursor = Math.max(cursor, span.end);
    }
    if (cursor < content.length) this.#taint.addTrusted(content.slice(cursor));
  }

  /** Whether the indexed context holds untrusted text. */
  get exposed(): boolean {
    return this.#taint.exposed;
  }

  /**
   * Classify a call's `input` against the indexed context: `tainted` with the spans its arguments
   * carry text of, `exposed` with the latest untrusted spans (when `withExposure`), or `clean`.
   * `ignore`: JSON Pointers of values not counted (a tool's `untaintedInputs`).
   */
  classify(input: JsonValue, withExposure = true, ignore: readonly string[] = []): ClassifiedCall {
    if (!this.#taint.exposed) return { classification: "clean", spans: [] };
    const findings = this.#taint.taint(input, MAX_SPANS, ignore);
    if (findings.length > 0) return { classification: "tainted", spans: findings.map((f) => this.#held(f)) };
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
): ClassifiedCall {
  return new ProvenanceIndex(options, trusted).sync(state, contextEnd(state, call.callId)).classify(call.input);
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
