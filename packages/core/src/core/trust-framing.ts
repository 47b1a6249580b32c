/**
 * Trust framing: the wrappers that tell the model how much a piece of text may be trusted.
 * Projection ({@link projectHumanInput}) always runs before these, so a speaker label sits inside
 * the frame it attributes. design §5 "Trust framing".
 */
import { attrEscape, inlineUntrusted } from "./neutralizers.ts";
import { defuseReservedTags } from "./reserved-markup.ts";

/** Longest `from="…"` / `kind="…"` value kept in a fence header, in code points. */
const HEADER_VALUE_MAX_CHARS = 64;

/** A source of random bytes. Injected so tests can pin nonces; defaults to Web Crypto. */
export type RandomBytes = (size: number) => Uint8Array;

const defaultRandomBytes: RandomBytes = (size) => globalThis.crypto.getRandomValues(new Uint8Array(size));

/**
 * Wrap trusted feedback (a hook's message, a supervisor's words) in a `<system-reminder>` block.
 * Every reserved tag inside the text (`<system-reminder>`, `</system-reminder>`, an untrusted
 * fence's boundary, in any spelling) is defused first (its angle brackets become `‹ ›`), so the
 * text cannot close the block early, open a nested one, or fake a fence.
 */
export function formatHookFeedback(text: string): string {
  return `<system-reminder>\n${defuseReservedTags(text)}\n</system-reminder>`;
}

/** Where a fenced text came from, for its header. Both values are neutralized. */
export interface DelimitUntrustedOptions {
  /** Who or what produced the text: a tool name, a webhook, an email sender. */
  from?: string;
  /** What the text is: `tool_output`, `web_page`, `email`, … */
  kind?: string;
  /** Random source for the boundary nonce. Tests pin it; production leaves it out. */
  randomBytes?: RandomBytes;
}

const NONCE_BYTES = 8;
const MAX_NONCE_DRAWS = 16;

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/** A nonce that does not occur in `text`; terminates even with a constant random source. */
function freshNonce(text: string, randomBytes: RandomBytes): string {
  let nonce = hex(randomBytes(NONCE_BYTES));
  for (let draw = 1; draw < MAX_NONCE_DRAWS && text.includes(nonce); draw++) {
    nonce = hex(randomBytes(NONCE_BYTES));
  }
  // A pinned or broken source can keep repeating itself; a counter suffix always escapes, since
  // the text has finitely many substrings.
  for (let suffix = 0; text.includes(nonce); suffix++) nonce = `${nonce.split("-")[0]}-${suffix}`;
  return nonce;
}

/**
 * Fence untrusted text (a tool's output, a webhook body, a relayed message) so the model can tell
 * exactly where it begins and ends. The boundary tag carries a random nonce that does not occur in
 * the text, so the text cannot forge the closing boundary; the header's `from` and `kind` go
 * through {@link inlineUntrusted} then {@link attrEscape}; the text inside is verbatim; the closing
 * boundary appears exactly once, last.
 */
export function delimitUntrusted(text: string, options: DelimitUntrustedOptions = {}): string {
  const nonce = freshNonce(text, options.randomBytes ?? defaultRandomBytes);
  const tag = `untrusted-${nonce}`;
  let header = `<${tag}`;
  if (options.kind !== undefined)
    header += ` kind="${attrEscape(inlineUntrusted(options.kind, HEADER_VALUE_MAX_CHARS))}"`;
  if (options.from !== undefined)
    header += ` from="${attrEscape(inlineUntrusted(options.from, HEADER_VALUE_MAX_CHARS))}"`;
  return `${header}>\n${text}\n</${tag}>`;
}

const OPERATOR_HEAD = "[Message from your operator, the agent that delegated this task to you:]\n";

/**
 * Frame a delegating parent agent's steer (the `operator` lane) for its child. Static text; a
 * blank projection is returned verbatim, like the mid-turn frame.
 */
export function frameOperatorInput(projected: string): string {
  if (projected.trim() === "") return projected;
  return OPERATOR_HEAD + projected;
}

const FENCE_OPEN = /^<untrusted-([0-9a-f]+(?:-[0-9]+)?)(?: kind="[^"\n]*")?(?: from="[^"\n]*")?>\n/;

/**
 * Where the fenced text of a {@link delimitUntrusted} result starts and ends, when `content` is
 * one whole fence (its head first, its own closing boundary last); `undefined` otherwise. What the
 * fold reads to know that a tool result was an untrusted tool's output: Sema wrote the fence, and
 * no tool, speaker or page can write one around trusted text (a trusted tool that prints one only
 * makes its own output count as untrusted).
 */
export function fencedRange(content: string): { start: number; end: number } | undefined {
  if (!content.startsWith("<untrusted-")) return undefined;
  const open = FENCE_OPEN.exec(content.slice(0, 256));
  if (open === null) return undefined;
  const close = `\n</untrusted-${open[1]}>`;
  if (!content.endsWith(close) || content.length < open[0].length + close.length) return undefined;
  return { start: open[0].length, end: content.length - close.length };
}

/**
 * `text` fenced as `original` was (the same `kind` and `from`, a fresh nonce) when `original` is
 * one whole fence and `text` is not: what keeps the provenance of an untrusted tool's result that
 * a hook rewrote (docs/guide/security.md), since the fold tells untrusted output by its fence.
 * Anything else comes back as it is.
 */
export function refence(original: string, text: string, randomBytes: RandomBytes = defaultRandomBytes): string {
  if (fencedRange(original) === undefined || fencedRange(text) !== undefined) return text;
  const open = FENCE_OPEN.exec(original.slice(0, 256));
  if (open === null) return text;
  // The head's attributes as they were written (already escaped), between the tag and `>\n`.
  const attributes = open[0].slice(`<untrusted-${open[1]}`.length, -2);
  const nonce = freshNonce(text, randomBytes);
  return `<untrusted-${nonce}${attributes}>\n${text}\n</untrusted-${nonce}>`;
}
