/** The size limits every store applies the same way: one event's JSON, one blob (see `StoreSizeLimits`). */

import type { StoreSizeLimits } from "../ports/store.ts";
import { ConfigError, ContentTooLargeError } from "../protocol/errors.ts";
import { utf8Length } from "./store-stats.ts";

/** The default largest event: 16 MiB of JSON. */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 2 ** 20;
/** The default largest blob: 64 MiB. */
export const DEFAULT_MAX_BLOB_BYTES = 64 * 2 ** 20;

/** `options`' limits with their defaults; a `ConfigError` naming `where` and the field for one that is not a positive integer. */
export function sizeLimits(where: string, options: StoreSizeLimits): Required<StoreSizeLimits> {
  const limits = {
    maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    maxBlobBytes: options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES,
  };
  for (const [path, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new ConfigError(where, [{ path, message: `must be a positive whole number of bytes, got ${value}` }]);
  }
  return limits;
}

/** Throws `ContentTooLarge` when the JSON `text` of event `index` of a write is over `limit` bytes. */
export function assertEventText(text: string, index: number, limit: number): void {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most events are ruled out without counting.
  if (text.length * 3 <= limit) return;
  const bytes = utf8Length(text);
  if (bytes > limit) throw new ContentTooLargeError("event", bytes, limit, index);
}

/** Throws `ContentTooLarge` when a blob is over `limit` bytes. */
export function assertBlobSize(bytes: Uint8Array, limit: number): void {
  if (bytes.byteLength > limit) throw new ContentTooLargeError("blob", bytes.byteLength, limit);
}
