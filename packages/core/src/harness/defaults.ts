/** The defaults of a host's settings (`HarnessOptions`), where it leaves one unset. */
export const DEFAULTS = {
  leaseTtlMs: 30_000,
  toolTimeoutMs: 120_000,
  maxToolOutputChars: 50_000,
  snapshotEvery: 1000,
} as const;

/**
 * The harness's clock when the host gives none (`HarnessOptions.clock`): the wall clock, looked up
 * at each call rather than captured, so a test that fakes `Date` after the leg began is seen.
 */
export function wallClock(): number {
  return Date.now();
}
