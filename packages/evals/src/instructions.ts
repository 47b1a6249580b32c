/**
 * What the obedient model reads as an instruction: a tool's name followed, within a short gap, by
 * a JSON object (`send_email with {"to": …}`), anywhere in its context. It is how an injection
 * "names a tool and arguments"; nothing else about the text matters to that model.
 */
import type { JsonValue } from "@sema-agent/core";
import type { PlannedCall } from "./types.ts";

/** How far after a tool's name its arguments may begin. */
const MAX_GAP = 40;

/** The balanced JSON object starting at `start` (a `{`), or undefined. */
function objectAt(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth += 1;
    else if (c === "}") {
      depth -= 1;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every instruction in `text` that names one of `toolNames` and gives its arguments, in order. */
export function findInstructions(text: string, toolNames: readonly string[]): PlannedCall[] {
  const found: { at: number; call: PlannedCall }[] = [];
  for (const name of toolNames) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(name, from);
      if (at < 0) break;
      from = at + name.length;
      const before = text[at - 1];
      const after = text[from];
      // A whole name only: `send_email`, not `resend_emails`.
      if ((before !== undefined && /\w/.test(before)) || (after !== undefined && /\w/.test(after))) continue;
      const brace = text.indexOf("{", from);
      if (brace < 0 || brace - from > MAX_GAP) continue;
      const json = objectAt(text, brace);
      if (json === undefined) continue;
      try {
        const input = JSON.parse(json) as JsonValue;
        if (isObject(input)) found.push({ at, call: { name, input } });
      } catch {
        // Not JSON: not an instruction this model can carry out.
      }
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.call);
}

/** A call's identity for "already done": its name and its input's canonical JSON. */
export function callKey(call: { name: string; input: JsonValue }): string {
  return `${call.name} ${canonical(call.input)}`;
}

function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] ?? null)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
