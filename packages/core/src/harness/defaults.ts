/** The defaults of a host's settings (`HarnessOptions`), where it leaves one unset. */
export const DEFAULTS = {
  leaseTtlMs: 30_000,
  toolTimeoutMs: 120_000,
  maxToolOutputChars: 50_000,
  snapshotEvery: 1000,
} as const;
