// @ts-check
// Two experiments' results side by side, case by case: pure (no DOM), so it is unit- and
// property-tested (src/console/experiments.test.ts). The server's compare route gives the means
// and the (case, scorer) changes; this pairs every case, the unchanged ones too, for the table.

/**
 * One case of an experiment's results, the fields read here (schemas/evals.ts `ExperimentCase`).
 * @typedef {{ caseId: string, taskId: string, status: string, scores: Record<string, { value: number, reason?: string }> }} ExperimentCase
 * @typedef {"better" | "worse" | "same" | "missing"} Change
 * @typedef {{ scorer: string, a?: number, b?: number, delta?: number, change: Change }} ScoreCell
 * @typedef {"better" | "worse" | "mixed" | "same" | "missing"} CaseChange
 * @typedef {{ caseId: string, a?: ExperimentCase, b?: ExperimentCase, cells: ScoreCell[], change: CaseChange }} CompareRow
 * @typedef {{ better: number, worse: number, mixed: number, same: number, missing: number }} CompareCounts
 */

/**
 * How one score moved from `a` (the baseline) to `b`: a higher score is better (every scorer
 * scores 0..1, higher is right). Either missing (not scored, or the case is in one only): missing.
 * @param {number | undefined} a
 * @param {number | undefined} b
 * @returns {Change}
 */
export function scoreChange(a, b) {
  if (a === undefined || b === undefined || Number.isNaN(a) || Number.isNaN(b)) return "missing";
  return b > a ? "better" : b < a ? "worse" : "same";
}

/**
 * A case's change over its scores: better if some rose and none fell, worse if some fell and none
 * rose, mixed if both, same if every score both have is equal, missing if none is in both.
 * @param {readonly ScoreCell[]} cells
 * @returns {CaseChange}
 */
export function caseChange(cells) {
  const rose = cells.some((cell) => cell.change === "better");
  const fell = cells.some((cell) => cell.change === "worse");
  if (rose && fell) return "mixed";
  if (rose) return "better";
  if (fell) return "worse";
  return cells.some((cell) => cell.change === "same") ? "same" : "missing";
}

/**
 * Every case of either experiment (`a`'s order, then `b`'s own cases), each scorer of either with
 * both scores, their difference and how it moved.
 * @param {{ scorers: readonly string[], cases: readonly ExperimentCase[] }} a the baseline
 * @param {{ scorers: readonly string[], cases: readonly ExperimentCase[] }} b
 * @returns {CompareRow[]}
 */
export function compareCases(a, b) {
  const scorers = [...new Set([...a.scorers, ...b.scorers])];
  const bById = new Map(b.cases.map((item) => [item.caseId, item]));
  const aIds = new Set(a.cases.map((item) => item.caseId));
  const pairs = [
    ...a.cases.map((item) => ({ caseId: item.caseId, a: item, b: bById.get(item.caseId) })),
    ...b.cases.filter((item) => !aIds.has(item.caseId)).map((item) => ({ caseId: item.caseId, a: undefined, b: item })),
  ];
  return pairs.map((pair) => {
    const cells = scorers.map((scorer) => {
      const before = pair.a?.scores[scorer]?.value;
      const after = pair.b?.scores[scorer]?.value;
      const change = scoreChange(before, after);
      return /** @type {ScoreCell} */ ({
        scorer,
        ...(before === undefined ? {} : { a: before }),
        ...(after === undefined ? {} : { b: after }),
        ...(change === "missing" ? {} : { delta: /** @type {number} */ (after) - /** @type {number} */ (before) }),
        change,
      });
    });
    return {
      caseId: pair.caseId,
      ...(pair.a === undefined ? {} : { a: pair.a }),
      ...(pair.b === undefined ? {} : { b: pair.b }),
      cells,
      change: caseChange(cells),
    };
  });
}

/**
 * How many cases improved, regressed, moved both ways, stayed, or could not be compared.
 * @param {readonly CompareRow[]} rows
 * @returns {CompareCounts}
 */
export function countChanges(rows) {
  const counts = { better: 0, worse: 0, mixed: 0, same: 0, missing: 0 };
  for (const row of rows) counts[row.change] += 1;
  return counts;
}

/** A score as shown: up to three decimals, "—" when absent. @param {number | undefined} value */
export function scoreText(value) {
  if (value === undefined) return "—";
  return String(Math.round(value * 1000) / 1000);
}

/** A difference with its sign ("+0.5", "−0.25", "0"), "—" when absent. @param {number | undefined} delta */
export function deltaText(delta) {
  if (delta === undefined) return "—";
  const shown = Math.round(delta * 1000) / 1000;
  if (shown === 0) return "0";
  return shown > 0 ? `+${shown}` : `−${-shown}`;
}

/** The words for a change, never a colour alone. */
export const CHANGE_TEXT = /** @type {const} */ ({
  better: "better",
  worse: "worse",
  mixed: "mixed",
  same: "same",
  missing: "not in both",
});
