/**
 * The one treatment every host gives human text before it is recorded: the server's routes, the
 * CLI and the library's `startTask` / `sendInput` / `wake` all go through
 * {@link sanitizeHumanText}. Projection never rewrites text, so this is where text becomes what
 * the model will read.
 */
import type { HumanInputSource } from "../protocol/human-input.ts";
import { defuseReservedMarkup } from "./reserved-markup.ts";

// C0 and C1 controls but `\n` and `\t`; CR is turned into LF first.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Unicode NFC; CR LF and lone CR become LF; every other C0/C1 control character except `\n` and
 * `\t` is removed; then, on every lane but the trusted supervisor's, reserved markup (frame tags
 * and frame-head lines, see `defuseReservedMarkup`) is defused so no text can pass for a
 * frame the harness wrote. Idempotent.
 */
export function sanitizeHumanText(text: string, source: HumanInputSource): string {
  const clean = text.normalize("NFC").replace(/\r\n?/g, "\n").replace(CONTROLS, "");
  return source === "supervisor" ? clean : defuseReservedMarkup(clean);
}
