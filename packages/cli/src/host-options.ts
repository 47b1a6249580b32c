/**
 * What the long-running hosts (`sema serve`, `sema worker`) share: their numeric flags, how they
 * report a leg's failure, and how they wait for Ctrl-C or SIGTERM.
 */
import { type CliIo, UsageError } from "./context.ts";
import { terminalSafe } from "./terminal-safe.ts";

export function nonNegativeInteger(flag: string, value: string | undefined, fallback: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a non-negative integer, got ${value}`);
  return n;
}

/**
 * `--lease-ttl ms`: how long a crashed node's tasks wait before another takes them over (the
 * holder renews every third of it). Default 30 s.
 */
export function leaseTtl(value: string | undefined): number {
  const ms = nonNegativeInteger("--lease-ttl", value, 30_000);
  if (ms < 300) throw new UsageError(`--lease-ttl must be at least 300 ms, got ${value}`);
  return ms;
}

/**
 * `--max-per-principal N`: legs of one principal this process runs at once, at most (on top of
 * the pool's fair share between principals). Absent: no cap beyond the fair share.
 */
export function maxPerPrincipal(value: string | undefined): { maxPerPrincipal?: number } {
  if (value === undefined) return {};
  const n = nonNegativeInteger("--max-per-principal", value, 0);
  if (n < 1) throw new UsageError(`--max-per-principal must be at least 1, got ${value}`);
  return { maxPerPrincipal: n };
}

/** A host's error sink: one line on stderr. */
export function reportTo(io: CliIo, who: string): (error: unknown, taskId: string | undefined) => void {
  return (error, taskId) =>
    io.stderr.write(
      `${terminalSafe(`${who}: ${taskId === undefined ? "" : `task ${taskId}: `}${error instanceof Error ? error.message : String(error)}`)}\n`,
    );
}

/** Resolves on Ctrl-C or SIGTERM (the bin turns both into `io.interrupt`). */
export function untilInterrupted(io: CliIo): Promise<void> {
  return new Promise<void>((resolve) => {
    if (io.interrupt === undefined || io.interrupt.aborted) return resolve();
    io.interrupt.addEventListener("abort", () => resolve(), { once: true });
  });
}
