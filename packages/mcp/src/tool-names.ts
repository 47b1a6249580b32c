/**
 * Sema tool names for MCP tools. Providers accept only `^[a-zA-Z0-9_-]{1,64}$`, while MCP allows
 * dots, slashes and longer names, so names are sanitized and truncated. When that makes two names
 * equal, the ones that changed get a suffix hashed from their original name rather than a counter:
 * the log records tool names, and a task resumed in a fresh process must see the same name for the
 * same tool even if the server lists its tools in another order.
 */
import { createHash } from "node:crypto";

/** The shape provider APIs accept (the same rule `defineTool` enforces). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;
const HASH_CHARS = 8;

/** Replace what providers refuse with `_` and cut to 64 characters. */
export function sanitizeToolName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_LENGTH);
  return cleaned === "" ? "_" : cleaned;
}

function hashed(base: string, original: string, chars: number): string {
  const digest = createHash("sha256").update(original).digest("hex").slice(0, chars);
  return `${base.slice(0, MAX_LENGTH - chars - 1)}_${digest}`;
}

/** The full (prefixed) name a tool would have before sanitizing. */
export function fullToolName(mcpName: string, prefix: string | undefined): string {
  return prefix === undefined ? mcpName : `${prefix}__${mcpName}`;
}

/**
 * One valid, unique Sema name per input name, in input order. A name that is already valid keeps
 * it; among names that sanitize to the same string, only an unchanged one keeps it; the others
 * get `_<hash>` (lengthened in the astronomically unlikely case that it collides too).
 */
export function assignToolNames(names: readonly string[]): string[] {
  const candidates = names.map(sanitizeToolName);
  const groups = new Map<string, number[]>();
  for (const [index, candidate] of candidates.entries()) {
    const group = groups.get(candidate) ?? [];
    group.push(index);
    groups.set(candidate, group);
  }
  const result: (string | undefined)[] = new Array(names.length).fill(undefined);
  const taken = new Set<string>();
  for (const [candidate, members] of groups) {
    // A name the server gave verbatim wins over names that only became equal by sanitizing.
    const keeper = members.length === 1 ? members[0] : members.find((i) => names[i] === candidate);
    if (keeper !== undefined) {
      result[keeper] = candidate;
      taken.add(candidate);
    }
  }
  for (const [index, candidate] of candidates.entries()) {
    if (result[index] !== undefined) continue;
    const original = names[index] ?? "";
    let chars = HASH_CHARS;
    let name = hashed(candidate, original, chars);
    while (taken.has(name) && chars < 32) {
      chars += 4;
      name = hashed(candidate, original, chars);
    }
    // Identical originals (a server listing one name twice) hash alike: count them apart.
    for (let n = 2; taken.has(name); n++) name = hashed(candidate, `${original}#${n}`, chars);
    result[index] = name;
    taken.add(name);
  }
  return result as string[];
}
