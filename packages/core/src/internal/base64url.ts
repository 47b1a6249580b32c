/**
 * Base64url (RFC 4648 §5, no padding) of UTF-8 text with the web's `btoa`/`atob`, so core needs no
 * Node `Buffer`; the output is byte-identical to `Buffer.from(text).toString("base64url")`.
 */

/** `text` as UTF-8, base64url-encoded without padding. */
export function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The UTF-8 text of a base64url string (padding optional); throws on characters outside the alphabet. */
export function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}
