/**
 * "Did you mean": the known name nearest to a mistyped one, by edit distance with adjacent
 * transpositions counted as one edit (`modle` → `model`), ignoring case. Only a close name is
 * offered: a wrong guess is worse than none.
 */

/** The optimal string alignment distance of `a` and `b` (Levenshtein plus adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/**
 * The name of `known` nearest to `given`, when it is close: at most 2 edits, and fewer than a
 * third of `given`'s length (one edit in a name of 4 characters or more, two in one of 7). Case
 * does not count; `given` itself is never offered. Ties go to the earlier name; none close
 * enough gives undefined.
 */
export function nearestName(given: string, known: Iterable<string>): string | undefined {
  const lower = given.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    if (name === given) continue;
    const distance = editDistance(lower, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return bestDistance <= 2 && bestDistance * 3 < given.length ? best : undefined;
}
