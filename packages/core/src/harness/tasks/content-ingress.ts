/**
 * The ingress of content parts (design §5 "Images and files"): an objective or an input given as
 * `ContentPart[]` becomes what the log records — the text parts' concatenation, sanitized for the
 * lane exactly as a string would be, and one reference per image or file part — after the bytes
 * went into the store's blob table under their SHA-256. Limits are checked before anything is
 * stored; a URL is kept as a URL unless the host asked for it to be fetched here.
 */
import { sanitizeHumanText } from "../../core/human-text.ts";
import type { Store } from "../../ports/store.ts";
import type { Attachment, ContentData, ContentPart } from "../../protocol/content.ts";
import { ContentTooLargeError, ContentUnsupportedError, InvalidInputError } from "../../protocol/errors.ts";
import type { HumanInputSource } from "../../protocol/human-input.ts";

/** Size limits on image and file parts (text parts are not counted). */
export interface ContentLimits {
  /** The largest image or file part, in bytes. Default 20 MiB. */
  maxPartBytes?: number;
  /** The largest total of one input's image and file parts, in bytes. Default 50 MiB. */
  maxInputBytes?: number;
  /** The most parts one input may have. Default 100. */
  maxParts?: number;
}

/** How an ingress (`startTask`, `sendInput`) takes content parts. */
export interface ContentOptions extends ContentLimits {
  /**
   * Fetch a URL part here and store its bytes like any other (default `false`: the URL is recorded
   * as it is and passed to the provider, which must say it takes such URLs). Fetching makes the
   * request independent of what the URL serves later; it also means this process makes the
   * request, so turn it on only for URLs the host trusts itself to fetch.
   */
  fetchUrls?: boolean;
  /** The `fetch` used when `fetchUrls` is on (default `globalThis.fetch`). */
  fetch?: (url: URL) => Promise<Response>;
}

/** The defaults of {@link ContentLimits}. */
export const DEFAULT_CONTENT_LIMITS: Readonly<Required<ContentLimits>> = Object.freeze({
  maxPartBytes: 20 * 1024 * 1024,
  maxInputBytes: 50 * 1024 * 1024,
  maxParts: 100,
});

/** What the log records of an input's content. */
export interface IngestedContent {
  /** The text parts, joined by a blank line and sanitized for the lane. */
  text: string;
  /** The image and file parts, in order; absent when there are none. */
  attachments?: Attachment[];
}

const MEDIA_TYPE = /^[\w.+-]+\/[\w.+*-]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes of a part's data (a URL is not bytes), copied so the caller's array cannot change them. */
function bytesOf(data: Uint8Array | string, index: number): Uint8Array<ArrayBuffer> {
  if (data instanceof Uint8Array) return data.slice();
  const compact = data.replace(/\s+/g, "");
  if (compact.length % 4 === 1 || !BASE64.test(compact))
    throw new InvalidInputError(`content part ${index}: data is not base64`, { index });
  const binary = atob(compact);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function sha256Bytes(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

type Checked =
  | { type: "text"; text: string }
  | { type: "image" | "file"; data: ContentData; mediaType: string; filename?: string };

/** The parts, checked for shape; a malformed one is an `InvalidInput` naming its index. */
function checkParts(parts: readonly unknown[], maxParts: number): Checked[] {
  if (parts.length > maxParts)
    throw new InvalidInputError(`an input has at most ${maxParts} content parts, got ${parts.length}`);
  return parts.map((raw, index): Checked => {
    const part = raw as Partial<ContentPart> | null;
    if (typeof part !== "object" || part === null)
      throw new InvalidInputError(`content part ${index} is not an object`);
    if (part.type === "text") {
      if (typeof part.text !== "string") throw new InvalidInputError(`content part ${index}: text must be a string`);
      return { type: "text", text: part.text };
    }
    if (part.type !== "image" && part.type !== "file")
      throw new InvalidInputError(`content part ${index}: type must be text, image or file`, { index });
    const { data, mediaType } = part;
    if (typeof mediaType !== "string" || !MEDIA_TYPE.test(mediaType))
      throw new InvalidInputError(`content part ${index}: mediaType must be a media type such as image/png`, { index });
    if (part.type === "image" && !mediaType.startsWith("image/"))
      throw new InvalidInputError(`content part ${index}: an image's mediaType starts with image/`, { index });
    if (!(data instanceof Uint8Array || typeof data === "string" || data instanceof URL))
      throw new InvalidInputError(`content part ${index}: data must be bytes, base64 text or a URL`, { index });
    const checked: Checked = { type: part.type, data, mediaType };
    const filename = (part as { filename?: unknown }).filename;
    if (filename !== undefined) {
      if (typeof filename !== "string") throw new InvalidInputError(`content part ${index}: filename must be a string`);
      checked.filename = filename;
    }
    return checked;
  });
}

async function fetchBytes(
  url: URL,
  options: ContentOptions,
  limit: number,
  index: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const doFetch = options.fetch ?? ((target: URL) => globalThis.fetch(target));
  let response: Response;
  try {
    response = await doFetch(url);
  } catch (error) {
    throw new ContentUnsupportedError(`content part ${index}: fetching ${url.href} failed: ${String(error)}`, {
      index,
    });
  }
  if (!response.ok)
    throw new ContentUnsupportedError(`content part ${index}: fetching ${url.href} answered ${response.status}`, {
      index,
      status: response.status,
    });
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw new ContentTooLargeError("part", declared, limit, index);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Turn `content` into what the log records, storing the bytes of its image and file parts.
 * `InvalidInput` for a malformed part, `ContentTooLarge` over a limit, `ContentUnsupported` when
 * the store has no blob table; nothing is stored unless every part passed its checks.
 */
export async function ingestContent(
  store: Store,
  content: string | readonly ContentPart[],
  source: HumanInputSource,
  options: ContentOptions = {},
): Promise<IngestedContent> {
  if (typeof content === "string") return { text: sanitizeHumanText(content, source) };
  if (!Array.isArray(content)) throw new InvalidInputError("content must be a string or an array of content parts");
  const limits = { ...DEFAULT_CONTENT_LIMITS, ...definedLimits(options) };
  const parts = checkParts(content, limits.maxParts);
  const texts: string[] = [];
  const pending: Array<{ part: Extract<Checked, { type: "image" | "file" }>; bytes?: Uint8Array<ArrayBuffer> }> = [];
  let total = 0;
  for (const [index, part] of parts.entries()) {
    if (part.type === "text") {
      texts.push(part.text);
      continue;
    }
    let bytes: Uint8Array<ArrayBuffer> | undefined;
    if (part.data instanceof URL) {
      if (options.fetchUrls !== true) {
        pending.push({ part });
        continue;
      }
      bytes = await fetchBytes(part.data, options, limits.maxPartBytes, index);
    } else bytes = bytesOf(part.data, index);
    if (bytes.length > limits.maxPartBytes)
      throw new ContentTooLargeError("part", bytes.length, limits.maxPartBytes, index);
    total += bytes.length;
    if (total > limits.maxInputBytes) throw new ContentTooLargeError("input", total, limits.maxInputBytes);
    pending.push({ part, bytes });
  }
  const text = sanitizeHumanText(texts.join("\n\n"), source);
  if (pending.length === 0) return { text };
  const needsBlobs = pending.some((item) => item.bytes !== undefined);
  if (needsBlobs && (store.putBlob === undefined || store.getBlob === undefined))
    throw new ContentUnsupportedError(
      "this store keeps no blobs (putBlob / getBlob), so it takes no image or file bytes",
    );
  const attachments: Attachment[] = [];
  for (const { part, bytes } of pending) {
    const filename = part.filename === undefined ? {} : { filename: part.filename };
    if (bytes === undefined) {
      attachments.push({ type: part.type, url: String(part.data), mediaType: part.mediaType, ...filename });
      continue;
    }
    const digest = await sha256Bytes(bytes);
    await store.putBlob?.({ digest, bytes });
    attachments.push({ type: part.type, digest, mediaType: part.mediaType, size: bytes.length, ...filename });
  }
  return { text, attachments };
}

function definedLimits(options: ContentLimits): ContentLimits {
  const limits: ContentLimits = {};
  for (const key of ["maxPartBytes", "maxInputBytes", "maxParts"] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0)
      throw new InvalidInputError(`content limit ${key} must be a whole number ≥ 0`);
    limits[key] = value;
  }
  return limits;
}
