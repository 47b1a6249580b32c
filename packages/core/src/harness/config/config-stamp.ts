/**
 * What a configuration object held when it was checked, by reference: its own keys and values,
 * and those of the plain objects and arrays inside it, two levels down (an agent's `budget`,
 * `delegation`, `tools` and each tool's fields). A check cached by object identity alone let an
 * agent changed after its first leg run unchecked; comparing the stamp costs a few dozen `===`.
 */

const DEPTH = 3;

function isContainer(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function push(out: unknown[], value: object, depth: number): void {
  const keys = Object.keys(value);
  out.push(keys.length);
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    out.push(key, item);
    if (depth > 1 && isContainer(item)) push(out, item, depth - 1);
  }
}

/** The stamp of `value` (see the module's note). */
export function configStamp(value: object): readonly unknown[] {
  const out: unknown[] = [];
  push(out, value, DEPTH);
  return out;
}

/** Whether `value` still holds what `stamp` recorded (same keys, same values by identity). */
export function matchesStamp(value: object, stamp: readonly unknown[]): boolean {
  const now = configStamp(value);
  if (now.length !== stamp.length) return false;
  for (let i = 0; i < now.length; i++) if (!Object.is(now[i], stamp[i])) return false;
  return true;
}
