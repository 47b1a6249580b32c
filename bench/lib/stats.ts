/** Summaries of repeated measurements: rounds vary (GC, the page cache, neighbours), so report the spread. */

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** How many samples. */
  n: number;
}

/** Median (the mean of the middle two for an even count), min and max. Throws on no samples. */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("no samples to summarize");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, n: sorted.length };
}
