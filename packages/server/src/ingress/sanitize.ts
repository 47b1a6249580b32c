/**
 * Human text is sanitized at the ingress: core's `sanitizeHumanText` (the one treatment every
 * host gives it: NFC, line breaks, control characters, reserved markup defused off the supervisor
 * lane), plus the server's length limit. What is stored is exactly what the model will see after
 * projection.
 */
import { type HumanInputSource, sanitizeHumanText } from "@sema-agent/core";
import { HttpError } from "../http-error.ts";

/**
 * `sanitizeHumanText(text, source)`, then a 413 when the result is longer than `maxChars` code
 * points.
 */
export function sanitizeText(text: string, source: HumanInputSource, maxChars: number, path: string): string {
  const clean = sanitizeHumanText(text, source);
  let length = 0;
  for (const _ of clean) {
    if (++length > maxChars)
      throw new HttpError(413, "PayloadTooLarge", `${path} is longer than ${maxChars} characters`, {
        details: { path, limit: maxChars },
      });
  }
  return clean;
}
