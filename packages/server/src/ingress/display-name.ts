/** Names people read as attribution (a relayed speaker, the sender of external text). */
import { badRequest } from "../http-error.ts";

/** Longest name kept (code points); longer is refused, not cut, so nobody is misnamed. */
export const NAME_MAX_CHARS = 64;

/**
 * NFC, trimmed, 1–64 code points, with no control or format character and no line or paragraph
 * separator (no CR/LF for header injection, no bidi override to disguise a name). Refused with a
 * 400 otherwise: a name is identity, and a silently altered one would misattribute.
 */
export function parseDisplayName(value: string, path: string): string {
  const name = value.normalize("NFC").trim();
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name))
    throw badRequest(`${path} must not contain control characters or line breaks`, path);
  const length = [...name].length;
  if (length === 0 || length > NAME_MAX_CHARS)
    throw badRequest(`${path} must be 1 to ${NAME_MAX_CHARS} characters`, path);
  return name;
}
