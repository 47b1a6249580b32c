/**
 * The `X-Sema-Speaker` header: a display name a shared front end relays for the person it serves.
 * It is a label the front end vouches for, never a credential, so it becomes an unverified actor
 * whose issuer is the token's own actor.
 */
import { parseDisplayName } from "./display-name.ts";

/**
 * The header (lower case) through which a shared front end relays the display name of the person it
 * serves; it becomes an unverified actor.
 */
export const SPEAKER_HEADER = "x-sema-speaker";
const PATH = "headers.x-sema-speaker";

/**
 * HTTP header values arrive as bytes read as Latin-1. A front end sends UTF-8, so the bytes are
 * re-read as UTF-8; bytes that are not valid UTF-8 were meant as Latin-1 (HTTP's historical
 * charset) and are kept as read.
 */
function decodeHeaderBytes(value: string): string {
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff) return value;
    if (code > 0x7f) ascii = false;
  }
  if (ascii) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(value, "latin1"));
  } catch {
    return value;
  }
}

/** The neutralized speaker name (see `parseDisplayName`), or a 400. */
export function parseSpeaker(raw: string): string {
  return parseDisplayName(decodeHeaderBytes(raw), PATH);
}
