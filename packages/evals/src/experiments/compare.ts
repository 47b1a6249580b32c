/**
 * Comparing two experiments (docs/guide/evals.md#compare): per scorer the two means and the
 * change, and the cases (matched by case id) whose score fell or rose, worst first. Cases only
 * one experiment has are listed apart: a comparison of different datasets says so.
 */
import type { ExperimentResult } from "./experiment-results.ts";

/** One case's change on one scorer. */
export interface CaseChange {
  caseId: string;
  scorer: string;
  before: number;
  after: number;
  /** `after - before`. */
  delta: number;
}

/** What changed from experiment `a` to `b`. */
export interface ExperimentComparison {
  a: { experimentId: string; name: string };
  b: { experimentId: string; name: string };
  /** Per scorer both experiments have: the means and `b - a`. */
  scorers: { scorer: string; a: number | undefined; b: number | undefined; delta: number | undefined }[];
  /** Cases whose score fell, the largest fall first. */
  regressions: CaseChange[];
  /** Cases whose score rose, the largest rise first. */
  improvements: CaseChange[];
  /** Case ids only `a` has, and only `b` has. */
  onlyA: string[];
  onlyB: string[];
}

/** Compare `a` (the baseline) with `b` (the change). */
export function compareExperiments(a: ExperimentResult, b: ExperimentResult): ExperimentComparison {
  const shared = a.scorers.filter((scorer) => b.scorers.includes(scorer));
  const scorers = shared.map((scorer) => {
    const ma = a.means[scorer];
    const mb = b.means[scorer];
    return { scorer, a: ma, b: mb, delta: ma === undefined || mb === undefined ? undefined : mb - ma };
  });
  const inB = new Map(b.cases.map((c) => [c.caseId, c]));
  const inA = new Set(a.cases.map((c) => c.caseId));
  const regressions: CaseChange[] = [];
  const improvements: CaseChange[] = [];
  for (const before of a.cases) {
    const after = inB.get(before.caseId);
    if (after === undefined) continue;
    for (const scorer of shared) {
      const x = before.scores[scorer]?.value;
      const y = after.scores[scorer]?.value;
      if (x === undefined || y === undefined || x === y) continue;
      const change = { caseId: before.caseId, scorer, before: x, after: y, delta: y - x };
      (y < x ? regressions : improvements).push(change);
    }
  }
  regressions.sort((p, q) => p.delta - q.delta || p.caseId.localeCompare(q.caseId));
  improvements.sort((p, q) => q.delta - p.delta || p.caseId.localeCompare(q.caseId));
  return {
    a: { experimentId: a.experimentId, name: a.name },
    b: { experimentId: b.experimentId, name: b.name },
    scorers,
    regressions,
    improvements,
    onlyA: a.cases.filter((c) => !inB.has(c.caseId)).map((c) => c.caseId),
    onlyB: b.cases.filter((c) => !inA.has(c.caseId)).map((c) => c.caseId),
  };
}
