/**
 * The provenance of a user entry's attachments (docs/guide/security.md "Attachments"). An image
 * or a file reaches the model beside the text it came with, so it belongs to that input's span
 * and lane: a text file's text is indexed like the input's words (untrusted on an untrusted lane),
 * and what cannot be read as text (an image, a PDF, a URL the provider fetches) is opaque — the
 * model may read anything in it, so on an untrusted lane no argument can be shown not to come
 * from it. Pure: the bytes come from the blobs the request carries (content-addressed, so any
 * process reads the same).
 */
import type { Attachment, UserPart } from "../protocol/content.ts";
import type { EntryProvenance, SpanProvenance } from "./entry-provenance.ts";

/** One attachment of an entry and the span of the input it came with (`undefined`: none found). */
export interface AttachedPart {
  attachment: Attachment;
  span: SpanProvenance | undefined;
}

/** The span holding offset `at` of the entry's content (the last one starting at or before it). */
function spanAt(provenance: EntryProvenance, at: number): SpanProvenance | undefined {
  let found: SpanProvenance | undefined;
  for (const span of provenance.spans) {
    if (span.start <= at && at < span.end) return span;
    if (span.start <= at && (found === undefined || span.start >= found.start)) found = span;
  }
  return found;
}

/**
 * The attachments of an entry, each with the span of the text part before it: an input's
 * attachments follow its framed text (`renderEntry`), which is the very string `content` holds.
 * An attachment with no text before it (an input of images only, first in its entry) has no span.
 */
export function attachmentsOf(
  content: string,
  parts: readonly UserPart[],
  provenance: EntryProvenance,
): AttachedPart[] {
  const attached: AttachedPart[] = [];
  let cursor = 0;
  let owner: SpanProvenance | undefined;
  for (const part of parts) {
    if (part.type === "text") {
      const at = content.indexOf(part.text, cursor);
      if (at === -1) continue;
      owner = spanAt(provenance, at);
      cursor = at + part.text.length;
    } else attached.push({ attachment: part, span: owner });
  }
  return attached;
}

const TEXTUAL =
  /^(?:text\/[\w.+-]+|application\/(?:[\w.-]+\+)?(?:json|xml|yaml|x-yaml|csv|x-ndjson|markdown|javascript|ecmascript|sql|toml|x-sh|x-www-form-urlencoded))$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The text the model reads of an attachment, when it is a text file whose bytes are in `blobs`
 * and are UTF-8; `undefined` for anything else (an image, a PDF, a URL, bytes not at hand), which
 * is then opaque.
 */
export function attachmentText(attachment: Attachment, blobs: ReadonlyMap<string, Uint8Array>): string | undefined {
  if (!("digest" in attachment)) return undefined;
  const mediaType = attachment.mediaType.toLowerCase();
  if (attachment.type !== "file" || !TEXTUAL.test(mediaType)) return undefined;
  const bytes = blobs.get(attachment.digest);
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** How an opaque attachment is named in a held span's excerpt. */
export function attachmentLabel(attachment: Attachment): string {
  const name = attachment.filename === undefined ? "" : ` "${attachment.filename}"`;
  return `[${attachment.type} attachment${name} (${attachment.mediaType}): not text, any argument may come from it]`;
}
