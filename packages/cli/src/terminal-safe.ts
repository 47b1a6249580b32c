/**
 * Text from a model, a tool, a file name or the log, made safe to print on a terminal. A control
 * character other than newline and tab (C0, DEL, C1: ESC starts OSC 52 clipboard writes, title
 * changes and screen clears, BEL rings, CR overwrites a line), a bidirectional override or
 * isolate (which reorders what the operator reads), and the Unicode line and paragraph
 * separators are shown as a visible escape (`\x1b`, `\u202e`) instead of being sent. Everything
 * else passes through unchanged, so the result is idempotent. Every CLI print site of such text
 * goes through `terminalSafe`; `--json` lines through `jsonLine`.
 */

/** Characters a terminal would act on or that change how the surrounding text reads. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeOf(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every unsafe character replaced by its visible escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeOf);
}

/**
 * One line of exact JSON for `value`: `JSON.stringify`, with the characters it leaves raw (DEL,
 * C1, bidi controls, U+2028/U+2029) written as `\uXXXX` escapes. Outside strings JSON text is
 * ASCII, so each such character is inside a string, and the line parses to the same value.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
