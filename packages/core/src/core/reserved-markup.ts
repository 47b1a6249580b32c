/**
 * Reserved markup: the frames only the harness writes. A model is told to trust exactly these
 * (see the standing instructions), so text from a speaker, a tool or a child agent must never
 * contain a working copy of one. `defuseReservedMarkup` turns every copy into visibly quoted
 * text, and is idempotent, so the ingress and the renderer may both apply it.
 *
 * What is reserved:
 * - tags: `<system-reminder>`, `</system-reminder>` and the untrusted fence's boundary form
 *   `<untrusted-…>` / `</untrusted-…>`, in any case, with any inner whitespace or attributes,
 *   with invisible format characters between the letters, and with the full-width or small angle
 *   brackets (`＜ ＞`, `﹤ ﹥`);
 * - frame heads at the start of a line: a speaker label (`[from …`) and the heads of the mid-turn,
 *   operator and resume frames (`[The user sent …`, `[Message from …`, `[These messages …`), in any
 *   case and spacing, behind any indentation or format characters, with any look-alike bracket
 *   that Unicode compatibility folding turns into `[`.
 *
 * Defused forms: a tag's angle brackets become `‹ ›`; a frame-head line is quoted with `> ` ahead
 * of it. Everything else is left exactly as it was.
 */

/** Put ahead of a line that looks like a frame head, so it reads as quoted text. */
export const QUOTE_MARK = "> ";

// Invisible characters a forger might slip between the letters of a tag.
const INVISIBLE = "[\\p{Cf}]*";

/** `word` as a pattern that tolerates format characters between its letters. */
function spaced(word: string): string {
  return [...word].join(INVISIBLE);
}

const OPEN_BRACKETS = "<＜﹤";
const CLOSE_BRACKETS = ">＞﹥";
const TAG_NAME = `(?:${spaced("system")}[\\s\\p{Cf}_-]*${spaced("reminder")}|${spaced("untrusted")})`;
const RESERVED_TAG = new RegExp(
  `[${OPEN_BRACKETS}](?=[\\s\\p{Cf}]*\\/?[\\s\\p{Cf}]*${TAG_NAME})([^${OPEN_BRACKETS}${CLOSE_BRACKETS}]*)([${CLOSE_BRACKETS}]?)`,
  "giu",
);

// Every break a model may read as a new line; the ingress removes most of them, old logs may not.
const LINE_BREAK = /(\r\n|[\n\r\v\f\u0085\u2028\u2029])/;

// A frame head once invisible characters are gone, compatibility-folded, lower-cased and spaced.
const FRAME_HEAD = /^[[〚⟦【〖]\s?(?:from(?![\p{L}\p{N}])|the user sent|message from|these messages)/u;

/** Whether a line, as a model would read it, starts with a frame head. */
export function isFrameHeadLine(line: string): boolean {
  const skeleton = line
    .replace(/\p{Cf}/gu, "")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/gu, " ")
    .trimStart();
  return FRAME_HEAD.test(skeleton);
}

/** Defuse the reserved tags in `text` only (their angle brackets become `‹ ›`). Idempotent. */
export function defuseReservedTags(text: string): string {
  return text.replace(RESERVED_TAG, (_match, inner: string, close: string) =>
    close === "" ? `‹${inner}` : `‹${inner}›`,
  );
}

/** Quote every frame-head line in `text` with {@link QUOTE_MARK}. Idempotent. */
function quoteFrameHeads(text: string): string {
  const parts = text.split(LINE_BREAK);
  // Even indexes are lines, odd ones the breaks between them.
  for (let i = 0; i < parts.length; i += 2) {
    const line = parts[i] ?? "";
    if (isFrameHeadLine(line)) parts[i] = QUOTE_MARK + line;
  }
  return parts.join("");
}

/**
 * Defuse every reserved tag and frame-head line in `text` (see the module comment). Idempotent:
 * `defuseReservedMarkup(defuseReservedMarkup(t)) === defuseReservedMarkup(t)`.
 */
export function defuseReservedMarkup(text: string): string {
  return quoteFrameHeads(defuseReservedTags(text));
}
