/**
 * Limits on a JSON body's shape, checked on the raw text before `JSON.parse` and before anything
 * that walks the parsed value: one linear scan, no recursion, so no nesting depth can overflow
 * the stack. It refuses nesting deeper than the limit and the keys `__proto__`, `constructor` and
 * `prototype` at any depth (JavaScript gives them meaning: zod and object spreads would drop or
 * act on them, so such a body could never be stored exactly as sent). Each refusal is a 400 that
 * names the path where the scan stopped. Malformed JSON is left to `JSON.parse` to report.
 */
import { badRequest, type HttpError } from "./http-error.ts";

/** Keys refused at any depth of a body. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

type Frame = { kind: "object"; key: string | undefined; expectKey: boolean } | { kind: "array"; index: number };

function pathOf(stack: readonly Frame[], root: string): string {
  let path = root;
  for (const frame of stack) {
    const step = frame.kind === "array" ? String(frame.index) : frame.key;
    if (step === undefined) break;
    path += `.${step}`;
  }
  return path;
}

/** A key's raw text (between its quotes) decoded; the raw text when it is not a valid string. */
function decodeKey(raw: string): string {
  // Most keys have no escape: the text between the quotes is the key.
  if (!raw.includes("\\")) return raw;
  try {
    const decoded: unknown = JSON.parse(`"${raw}"`);
    return typeof decoded === "string" ? decoded : raw;
  } catch {
    return raw;
  }
}

/**
 * The first violation in `text` (a JSON document), as a 400; `undefined` when there is none.
 * `maxDepth` counts containers: `{"a":[1]}` is 2 deep.
 */
export function jsonShapeError(text: string, maxDepth: number, root = "body"): HttpError | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      i = start;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
      const top = stack.at(-1);
      if (top?.kind === "object" && top.expectKey) {
        top.key = decodeKey(text.slice(start, i));
        top.expectKey = false;
        if (RESERVED_KEYS.has(top.key))
          return badRequest(`the key ${JSON.stringify(top.key)} is not accepted in a body`, pathOf(stack, root), {
            key: top.key,
          });
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth)
        return badRequest(`the body is nested deeper than ${maxDepth} levels`, pathOf(stack, root), {
          maxDepth,
        });
      stack.push(c === 0x7b ? { kind: "object", key: undefined, expectKey: true } : { kind: "array", index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.kind === "array") top.index++;
      else if (top !== undefined) top.expectKey = true;
    }
  }
  return undefined;
}

/**
 * The first string (or key) of a parsed value that is not well-formed UTF-16 (a lone surrogate),
 * as a path. Iterative, so its cost is the value's size whatever its depth.
 */
export function illFormedPath(value: unknown, root = "body"): string | undefined {
  const pending: Array<[unknown, string]> = [[value, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === "string") {
      if (!item.isWellFormed()) return path;
    } else if (Array.isArray(item)) {
      // Pushed in reverse, so children are visited in document order.
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${path}.${i}`]);
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      for (const [key] of entries) if (!key.isWellFormed()) return `${path}.${key.toWellFormed()}`;
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] ?? ["", undefined];
        pending.push([child, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}
