/**
 * Human text is sanitized here, at the ingress, and nowhere else (SPEC §5: projection never
 * rewrites text). What is stored is exactly what the model will see after projection.
 */
import { HttpError } from "../http-error.ts";

/**
 * Unicode NFC; CR LF and lone CR become LF; every other C0/C1 control character except `\n` and
 * `\t` is removed. Throws a 413 when the result is longer than `maxChars` code points.
 */
export function sanitizeText(text: string, maxChars: number, path: string): string {
  const clean = text
    .normalize("NFC")
    .replace(/\r\n?/g, "\n")
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
  let length = 0;
  for (const _ of clean) {
    if (++length > maxChars)
      throw new HttpError(413, "PayloadTooLarge", `${path} is longer than ${maxChars} characters`, {
        details: { path, limit: maxChars },
      });
  }
  return clean;
}
