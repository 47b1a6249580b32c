/**
 * A turn of the event loop, for work that should let I/O and timers run first. Uses `setImmediate`
 * where the runtime has it (Node, Bun, Deno), else a zero timeout.
 */
type Immediate = (callback: () => void) => unknown;

// Taken once, when the module loads: a test's fake timers installed later do not hold the legs
// or the work they defer (their clock, `performance.now`, may still be faked).
const immediate = (globalThis as { setImmediate?: Immediate }).setImmediate;
const timeout = globalThis.setTimeout;

/** Run `callback` on a later turn of the event loop, after pending I/O. */
export function deferToMacrotask(callback: () => void): void {
  if (immediate !== undefined) immediate(callback);
  else timeout(callback, 0);
}

/** Settles on a later turn of the event loop, after pending I/O. */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => deferToMacrotask(resolve));
}
