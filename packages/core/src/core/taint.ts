/**
 * Taint: whether a tool call's argument carries a run of untrusted text (docs/guide/security.md
 * "Taint"). Pure and deterministic. Both sides are normalized the same way first:
 *
 *  1. percent-decoding, twice (so `%2540` and `%40` both become `@`), as UTF-8;
 *  2. per code point: NFKC, then lower case; format characters (zero-width, bidi) are dropped;
 *  3. whitespace: for runs ({@link TaintIndex} `minChars`, N) every whitespace character and `+`
 *     is removed, so N counts the other characters; for tokens it collapses to one space.
 *
 * An argument is **tainted** when, after that, (a) some N-character window of one string (or
 * number) value of it, or of two values joined end to start (a value split across two
 * arguments, in either order), occurs in an untrusted span and in no trusted text; or (b) it has a
 * URL, e-mail address, domain, path or number (at least `minNumberDigits` digits) token that
 * occurs in an untrusted span and in no trusted text. Windows are kept as two 32-bit polynomial
 * rolling hashes in a typed-array table (window-table.ts), so indexing costs O(length) and looking
 * a value up O(its length), however long the transcript. A false match needs two independent
 * 32-bit hashes to collide at once.
 */
import type { JsonValue } from "../protocol/json.ts";
import type { TaintMatch } from "../protocol/provenance.ts";
import { WindowTable } from "./window-table.ts";

/** The shortest run of untrusted text (after normalization) that taints an argument by default. */
export const DEFAULT_TAINT_MIN_CHARS = 24;
/** The fewest digits a number token needs by default. */
export const DEFAULT_TAINT_MIN_NUMBER_DIGITS = 3;

/** How taint is found (see the module comment). */
export interface TaintOptions {
  /** N: the shortest run of untrusted characters (whitespace not counted) that taints. Default 24. */
  minChars?: number;
  /** The fewest digits a number token needs. Default 3. */
  minNumberDigits?: number;
}

/** One reason an argument is tainted: where, how, the normalized text that matched, and the span's `ref`. */
export interface TaintFinding {
  /** A JSON Pointer to the value in the call's input; `a + b` for a run across two values. */
  argument: string;
  match: TaintMatch;
  /** The normalized text that matched (a window of N characters, or the token). */
  text: string;
  /** The `ref` the untrusted span was added with. */
  ref: number;
}

/** A normalized string and, when asked for, the index in the original of each of its UTF-16 units. */
interface Normalized {
  text: string;
  map: number[] | undefined;
}

const decoder = new TextDecoder("utf-8", { fatal: false });
const FORMAT = /\p{Cf}/u;
const SPACE = /\s/u;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

function decodePercent(input: Normalized, withMap: boolean): Normalized {
  const { text, map } = input;
  if (!text.includes("%")) return input;
  let out = "";
  const outMap: number[] | undefined = withMap ? [] : undefined;
  let i = 0;
  while (i < text.length) {
    const from = i;
    const bytes: number[] = [];
    while (i + 2 < text.length && text.charCodeAt(i) === 37) {
      const high = hexValue(text.charCodeAt(i + 1));
      const low = hexValue(text.charCodeAt(i + 2));
      if (high < 0 || low < 0) break;
      bytes.push(high * 16 + low);
      i += 3;
    }
    if (bytes.length === 0) {
      out += text[i];
      outMap?.push(map === undefined ? i : (map[i] ?? i));
      i++;
      continue;
    }
    const decoded = decoder.decode(Uint8Array.from(bytes));
    out += decoded;
    if (outMap !== undefined)
      for (let k = 0; k < decoded.length; k++) outMap.push(map === undefined ? from : (map[from] ?? from));
  }
  return { text: out, map: outMap };
}

/**
 * Case fold and whitespace per code point (NFKC, lower case, format characters dropped): `spaces`
 * keeps one space per whitespace run (for tokens), otherwise whitespace and `+` are removed.
 */
function foldChars(input: Normalized, spaces: boolean, withMap: boolean): Normalized {
  const { text, map } = input;
  let out = "";
  const outMap: number[] | undefined = withMap ? [] : undefined;
  const origin = (i: number) => (map === undefined ? i : (map[i] ?? i));
  let pendingSpace = false;
  const emit = (chars: string, at: number) => {
    if (pendingSpace && out.length > 0) {
      out += " ";
      outMap?.push(at);
    }
    pendingSpace = false;
    out += chars;
    if (outMap !== undefined) for (let k = 0; k < chars.length; k++) outMap.push(at);
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) {
      if (code <= 32 || code === 127 || (!spaces && code === 43)) {
        if (spaces && code !== 127 && (code === 32 || (code >= 9 && code <= 13))) pendingSpace = true;
        continue;
      }
      emit(code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : (text[i] as string), origin(i));
      continue;
    }
    const point = text.codePointAt(i) ?? code;
    const char = String.fromCodePoint(point);
    const at = origin(i);
    if (point > 0xffff) i++;
    if (FORMAT.test(char)) continue;
    const folded = char.normalize("NFKC").toLowerCase();
    if (SPACE.test(folded)) {
      if (spaces) pendingSpace = true;
      continue;
    }
    emit(folded, at);
  }
  return { text: out, map: outMap };
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_DROPPED = /[\x00-\x20\x7f+]+/g;
const ASCII_CONTROLS = /[\x00-\x08\x0e-\x1f\x7f]+/g;
const ASCII_SPACES = /[\t-\r ]+/g;

/** The normalized form of `text` (see the module comment); `spaces` for token extraction. */
export function normalizeForTaint(text: string, spaces = false): string {
  // ASCII with nothing to decode (most arguments and outputs): the same result by a few regexes.
  if (!text.includes("%") && ASCII_ONLY.test(text)) {
    if (!spaces) return text.replace(ASCII_DROPPED, "").toLowerCase();
    return text.replace(ASCII_CONTROLS, "").replace(ASCII_SPACES, " ").trim().toLowerCase();
  }
  let n: Normalized = { text, map: undefined };
  n = decodePercent(decodePercent(n, false), false);
  return foldChars(n, spaces, false).text;
}

/** {@link normalizeForTaint} with the index in `text` of each unit of the result (for excerpts). */
export function normalizeWithMap(text: string, spaces = false): { text: string; map: number[] } {
  let n: Normalized = { text, map: undefined };
  n = decodePercent(decodePercent(n, true), true);
  const folded = foldChars(n, spaces, true);
  return { text: folded.text, map: folded.map ?? [] };
}

const B1 = 0x01000193;
const B2 = 0x5bd1e995;

function power(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i++) result = Math.imul(result, base);
  return result;
}

/**
 * Call `visit(h1, h2, start)` for each window of `n` units of `text` (its two 32-bit hashes), left
 * to right; stop when it returns true.
 */
function eachWindow(text: string, n: number, visit: (h1: number, h2: number, start: number) => boolean): void {
  const from = 0;
  const to = text.length;
  if (to < n) return;
  const p1 = power(B1, n - 1);
  const p2 = power(B2, n - 1);
  let h1 = 0;
  let h2 = 0;
  for (let i = from; i < from + n; i++) {
    const c = text.charCodeAt(i);
    h1 = (Math.imul(h1, B1) + c) | 0;
    h2 = (Math.imul(h2, B2) + c) | 0;
  }
  for (let start = from; ; start++) {
    if (visit(h1, h2, start)) return;
    const next = start + n;
    if (next >= to) return;
    const out = text.charCodeAt(start);
    const inc = text.charCodeAt(next);
    h1 = (Math.imul((h1 - Math.imul(out, p1)) | 0, B1) + inc) | 0;
    h2 = (Math.imul((h2 - Math.imul(out, p2)) | 0, B2) + inc) | 0;
  }
}

const TRAILING = /[.,;:!?)\]}'"*>]+$/;
const URL = /(?:[a-z][a-z0-9+.-]{1,15}:\/\/|www\.)[^\s<>"'`\\]+/g;
const EMAIL = /[a-z0-9._%+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,24}/g;
const DOMAIN = /(?<![a-z0-9@._-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,24}(?![a-z0-9-])/g;
const PATH = /(?<![a-z0-9_.~/-])(?:~|\.{1,2})?\/?[a-z0-9_.-]+(?:\/[a-z0-9_.-]+)+\/?/g;
const NUMBER = /\d+(?:[.,]\d+)*/g;

function eachMatch(pattern: RegExp, text: string, visit: (match: string) => void): void {
  pattern.lastIndex = 0;
  for (let found = pattern.exec(text); found !== null; found = pattern.exec(text)) visit(found[0]);
}

const DIGIT = /\d/;

/** The tokens of a text normalized with spaces. Each pattern runs only where its mark occurs. */
export function taintTokens(spaced: string, minNumberDigits: number): Array<{ kind: TaintMatch; token: string }> {
  const found: Array<{ kind: TaintMatch; token: string }> = [];
  const add = (kind: TaintMatch) => (raw: string) => {
    const token = raw.replace(TRAILING, "");
    if (token.length > 0) found.push({ kind, token });
  };
  if (spaced.includes("://") || spaced.includes("www.")) eachMatch(URL, spaced, add("url"));
  if (spaced.includes("@")) eachMatch(EMAIL, spaced, add("email"));
  if (spaced.includes(".")) eachMatch(DOMAIN, spaced, add("domain"));
  if (spaced.includes("/")) eachMatch(PATH, spaced, add("path"));
  if (DIGIT.test(spaced))
    eachMatch(NUMBER, spaced, (number) => {
      let canonical = number.replaceAll(",", "");
      // 1,000.50 and 1000.5 are one amount; leading zeros (an account number's) are kept.
      if (/^\d+\.\d+$/.test(canonical)) canonical = canonical.replace(/0+$/, "").replace(/\.$/, "");
      let digits = 0;
      for (let i = 0; i < canonical.length; i++) if (canonical.charCodeAt(i) !== 46) digits++;
      if (digits >= minNumberDigits) found.push({ kind: "number", token: canonical });
    });
  return found;
}

/** One string or number leaf of a call's input, with its JSON Pointer. */
interface Leaf {
  path: string;
  text: string;
}

function leaves(value: JsonValue, path: string, out: Leaf[]): void {
  if (typeof value === "string") out.push({ path: path === "" ? "/" : path, text: value });
  else if (typeof value === "number") out.push({ path: path === "" ? "/" : path, text: String(value) });
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) leaves(value[i] as JsonValue, `${path}/${i}`, out);
  } else if (value !== null && typeof value === "object")
    for (const [key, item] of Object.entries(value))
      leaves(item, `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, out);
}

/** How much of each end of two values is looked at for a run or token that crosses them. */
const JOIN_EDGE = 256;
/** At most this many values are paired for runs across two of them. */
const MAX_PAIRED = 64;

/**
 * The untrusted and trusted text a model saw, indexed for {@link TaintIndex.taint}. Spans are
 * added once each, so a leg extends one index as the transcript grows.
 */
export class TaintIndex {
  readonly #n: number;
  readonly #minDigits: number;
  readonly #untrusted = new WindowTable();
  readonly #trusted = new WindowTable();
  readonly #untrustedTokens = new Map<string, number>();
  readonly #trustedTokens = new Set<string>();
  #exposed = false;

  constructor(options: TaintOptions = {}) {
    this.#n = options.minChars ?? DEFAULT_TAINT_MIN_CHARS;
    this.#minDigits = options.minNumberDigits ?? DEFAULT_TAINT_MIN_NUMBER_DIGITS;
  }

  /** N, the window length. */
  get minChars(): number {
    return this.#n;
  }

  /** Whether any untrusted span with text in it has been added. */
  get exposed(): boolean {
    return this.#exposed;
  }

  /**
   * Index an untrusted span; `ref` comes back on each finding that rests on it (the first span
   * wins, unless this one is `preferred`: a quarantined reader's answer, named over the page it read).
   */
  addUntrusted(text: string, ref: number, preferred = false): void {
    const compact = normalizeForTaint(text);
    if (compact.length === 0) return;
    this.#exposed = true;
    const untrusted = this.#untrusted;
    untrusted.reserve(compact.length - this.#n + 1);
    eachWindow(compact, this.#n, (h1, h2) => {
      untrusted.set(h1, h2, ref, preferred);
      return false;
    });
    for (const { kind, token } of taintTokens(normalizeForTaint(text, true), this.#minDigits)) {
      const key = `${kind}:${token}`;
      if (preferred || !this.#untrustedTokens.has(key)) this.#untrustedTokens.set(key, ref);
    }
  }

  /** Index trusted text: a run or token found here taints nothing. */
  addTrusted(text: string): void {
    const compact = normalizeForTaint(text);
    if (compact.length === 0) return;
    const trusted = this.#trusted;
    trusted.reserve(compact.length - this.#n + 1);
    eachWindow(compact, this.#n, (h1, h2) => {
      trusted.set(h1, h2, 0, false);
      return false;
    });
    for (const { kind, token } of taintTokens(normalizeForTaint(text, true), this.#minDigits))
      this.#trustedTokens.add(`${kind}:${token}`);
  }

  /** The span a window of normalized text rests on, or undefined when it is trusted or unknown. */
  #windowRef(h1: number, h2: number): number | undefined {
    const ref = this.#untrusted.get(h1, h2);
    return ref === -1 || this.#trusted.has(h1, h2) ? undefined : ref;
  }

  #firstRun(text: string, argument: string): TaintFinding | undefined {
    let found: TaintFinding | undefined;
    eachWindow(text, this.#n, (h1, h2, start) => {
      const ref = this.#windowRef(h1, h2);
      if (ref === undefined) return false;
      found = { argument, match: "substring", text: text.slice(start, start + this.#n), ref };
      return true;
    });
    return found;
  }

  #tokens(spaced: string, argument: string, skip?: ReadonlySet<string>): TaintFinding[] {
    const findings: TaintFinding[] = [];
    for (const { kind, token } of taintTokens(spaced, this.#minDigits)) {
      const key = `${kind}:${token}`;
      if (skip?.has(key)) continue;
      const ref = this.#untrustedTokens.get(key);
      if (ref === undefined || this.#trustedTokens.has(key)) continue;
      findings.push({ argument, match: kind, text: token, ref });
    }
    return findings;
  }

  /**
   * Why `input` is tainted: at most `limit` findings, none when it is not. Values at the JSON
   * Pointers in `ignore` (or under them) are left out.
   */
  taint(input: JsonValue, limit = 8, ignore: readonly string[] = []): TaintFinding[] {
    if (this.#untrusted.size === 0 && this.#untrustedTokens.size === 0) return [];
    const found: Leaf[] = [];
    leaves(input, "", found);
    const all =
      ignore.length === 0
        ? found
        : found.filter((leaf) => !ignore.some((path) => leaf.path === path || leaf.path.startsWith(`${path}/`)));
    const findings: TaintFinding[] = [];
    const seen = new Set<string>();
    const push = (finding: TaintFinding | undefined) => {
      if (finding === undefined || findings.length >= limit) return;
      const key = `${finding.argument}\u0000${finding.ref}`;
      if (seen.has(key)) return;
      seen.add(key);
      findings.push(finding);
    };
    const compact = all.map((leaf) => normalizeForTaint(leaf.text));
    const alone = all.map((leaf) => {
      const spaced = normalizeForTaint(leaf.text, true);
      return { spaced, keys: new Set(taintTokens(spaced, this.#minDigits).map((t) => `${t.kind}:${t.token}`)) };
    });
    all.forEach((leaf, i) => {
      push(this.#firstRun(compact[i] ?? "", leaf.path));
      for (const finding of this.#tokens(alone[i]?.spaced ?? "", leaf.path)) push(finding);
    });
    // A run split across two values, in either order: only windows that cross the join are new.
    const paired = all.slice(0, MAX_PAIRED);
    for (let a = 0; a < paired.length && findings.length < limit; a++) {
      for (let b = 0; b < paired.length && findings.length < limit; b++) {
        if (a === b) continue;
        const head = (compact[a] ?? "").slice(-(this.#n - 1));
        const tail = (compact[b] ?? "").slice(0, this.#n - 1);
        const joined = head + tail;
        const argument = `${paired[a]?.path} + ${paired[b]?.path}`;
        // Each end is at most N-1 long, so every window of the join crosses it.
        push(this.#firstRun(joined, argument));
        const left = (alone[a]?.spaced ?? "").slice(-JOIN_EDGE);
        const right = (alone[b]?.spaced ?? "").slice(0, JOIN_EDGE);
        const skip = new Set([...(alone[a]?.keys ?? []), ...(alone[b]?.keys ?? [])]);
        for (const finding of this.#tokens(left + right, argument, skip)) push(finding);
      }
    }
    return findings;
  }
}
