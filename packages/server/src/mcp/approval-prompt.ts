/**
 * The text an MCP elicitation shows a person about a call waiting for approval: every top-level
 * argument on a line of its own, each cut on its own (saying how much was cut), and the digest.
 * One long argument can no longer push the others (a `path`, a recipient) out of sight.
 */

/** Characters of one argument's value shown, at most. */
export const ARG_SHOWN_CHARS = 500;
/** Characters of one argument's name shown, at most. */
const NAME_SHOWN_CHARS = 100;
/** Characters shown of an input that is not an object (a bare value, or JSON that does not parse). */
const WHOLE_SHOWN_CHARS = 2000;

/** `text` cut to `max` characters (never inside a surrogate pair), saying how much was left out. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (cut: ${(text.length - end).toLocaleString("en-US")} more characters)`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The elicitation message for `name` called with `inputJson` in `taskId`, bound to `digest`. */
export function approvalPrompt(taskId: string, name: string, inputJson: string, digest: string): string {
  let input: unknown;
  try {
    input = JSON.parse(inputJson);
  } catch {
    input = undefined;
  }
  const head = `Task ${taskId} wants to call ${name}`;
  const tail = `Digest ${digest}. Approve it?`;
  if (!isRecord(input)) return `${head} with ${cutText(inputJson, WHOLE_SHOWN_CHARS)}\n${tail}`;
  const entries = Object.entries(input);
  if (entries.length === 0) return `${head} with no arguments.\n${tail}`;
  // Names and values as JSON: a newline or quote inside either cannot fake another line.
  const lines = entries.map(
    ([key, value]) =>
      `- ${cutText(JSON.stringify(key), NAME_SHOWN_CHARS)}: ${cutText(JSON.stringify(value) ?? "null", ARG_SHOWN_CHARS)}`,
  );
  const count = entries.length === 1 ? "1 argument" : `${entries.length} arguments`;
  return `${head} with ${count}:\n${lines.join("\n")}\n${tail}`;
}
