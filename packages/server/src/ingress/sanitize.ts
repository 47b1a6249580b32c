/**
 * Human text is sanitized at the ingress: core's `sanitizeHumanText` (the one treatment every
 * host gives it: NFC, line breaks, control characters, reserved markup defused off the supervisor
 * lane), plus the server's length limit. What is stored is exactly what the model will see after
 * projection.
 */
import type { ContentPart, HumanInputSource } from "@sema-agent/core";
import { sanitizeHumanText } from "@sema-agent/core/trust";
import { badRequest, HttpError } from "../http-error.ts";

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

/** A body's text or content parts, as the schema `textOrParts` accepts them. */
export type TextOrParts = string | readonly ContentPart[];

/**
 * The server's checks of an objective or input given as a string or as content parts: the text
 * (a string, or the text parts joined by a blank line as core records them) is sanitized and
 * capped like any text, and must not be empty unless image or file parts come with it (400). A
 * string comes back sanitized; parts come back as given, for core's ingress to sanitize and store.
 */
export function checkTextOrParts(
  value: TextOrParts,
  source: HumanInputSource,
  maxChars: number,
  path: string,
): TextOrParts {
  const parts = typeof value === "string" ? undefined : value;
  const joined =
    parts === undefined
      ? (value as string)
      : parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
  const clean = sanitizeText(joined, source, maxChars, path);
  const attachments = parts?.some((part) => part.type !== "text") === true;
  if (clean.trim() === "" && !attachments) throw badRequest(`${path} is empty`, path);
  return parts ?? clean;
}
