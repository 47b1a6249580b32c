/** Timing and memory probes. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Run `work` and return how long it took (ms, high resolution) with its result. */
export async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/** `count` operations in `ms` milliseconds, per second. */
export function perSecond(count: number, ms: number): number {
  return (count * 1000) / ms;
}

let gc: (() => void) | undefined;

/**
 * Collect garbage now, so a memory reading shows what is retained rather than what is pending.
 * Works without `--expose-gc` on the command line (the flag is set at run time).
 */
export function forceGc(): void {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
  gc();
}

export interface MemoryReading {
  /** Resident set size of the whole process, MiB. */
  rssMiB: number;
  /** V8 heap in use, MiB. */
  heapMiB: number;
}

/** RSS and heap in use after a full collection. */
export function memoryAfterGc(): MemoryReading {
  forceGc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rssMiB: rss / 2 ** 20, heapMiB: heapUsed / 2 ** 20 };
}
