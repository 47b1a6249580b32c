/**
 * The compare view's pairing (`console/experiments.js`, the module the browser loads): every case
 * of either experiment once, each score's move classified, the counts adding up; and swapping the
 * two experiments swaps better and worse, nothing else.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CompareRow,
  caseChange,
  compareCases,
  countChanges,
  deltaText,
  type ExperimentCase,
  scoreChange,
  scoreText,
} from "../../console/experiments.js";

const item = (caseId: string, scores: Record<string, number>): ExperimentCase => ({
  caseId,
  taskId: `task-${caseId}`,
  status: "completed",
  scores: Object.fromEntries(Object.entries(scores).map(([scorer, value]) => [scorer, { value }])),
});

describe("compareCases", () => {
  it("pairs the cases by id, classifies each score and each case, and counts them", () => {
    const a = {
      scorers: ["exact", "includes"],
      cases: [
        item("spain", { exact: 1, includes: 1 }),
        item("france", { exact: 0, includes: 1 }),
        item("italy", { exact: 1, includes: 0 }),
        item("peru", { exact: 1, includes: 1 }),
        item("gone", { exact: 1 }),
      ],
    };
    const b = {
      scorers: ["exact", "includes"],
      cases: [
        item("france", { exact: 1, includes: 1 }),
        item("spain", { exact: 0, includes: 0.5 }),
        item("italy", { exact: 0, includes: 1 }),
        item("peru", { exact: 1, includes: 1 }),
        item("new", { exact: 1 }),
      ],
    };
    const rows = compareCases(a, b);
    expect(rows.map((row) => [row.caseId, row.change])).toEqual([
      ["spain", "worse"],
      ["france", "better"],
      ["italy", "mixed"],
      ["peru", "same"],
      ["gone", "missing"],
      ["new", "missing"],
    ]);
    expect(rows[0]?.cells).toEqual([
      { scorer: "exact", a: 1, b: 0, delta: -1, change: "worse" },
      { scorer: "includes", a: 1, b: 0.5, delta: -0.5, change: "worse" },
    ]);
    expect(rows[4]?.cells[0]).toEqual({ scorer: "exact", a: 1, change: "missing" });
    expect(rows[4]?.b).toBeUndefined();
    expect(rows[5]?.a).toBeUndefined();
    expect(countChanges(rows)).toEqual({ better: 1, worse: 1, mixed: 1, same: 1, missing: 2 });
  });

  it("calls a case whose scorer scored in one only by the scores both have", () => {
    const rows = compareCases(
      { scorers: ["exact"], cases: [item("x", { exact: 0 })] },
      { scorers: ["exact", "judge"], cases: [item("x", { exact: 1, judge: 0 })] },
    );
    expect(rows[0]?.cells.map((cell) => cell.change)).toEqual(["better", "missing"]);
    expect(rows[0]?.change).toBe("better");
  });

  it("formats scores and differences", () => {
    expect([scoreText(undefined), scoreText(0.66666), scoreText(1)]).toEqual(["—", "0.667", "1"]);
    expect([deltaText(undefined), deltaText(0.5), deltaText(-0.25), deltaText(0.00001)]).toEqual([
      "—",
      "+0.5",
      "−0.25",
      "0",
    ]);
  });
});

const SCORERS = ["exact", "includes", "judge"];
const score = fc.oneof(fc.constant(undefined), fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true }));
const experiment = fc
  .tuple(
    fc.subarray(SCORERS, { minLength: 1 }),
    fc.uniqueArray(
      fc.record({ caseId: fc.constantFrom("a", "b", "c", "d", "e", "f"), scores: fc.tuple(score, score, score) }),
      { selector: (c) => c.caseId, maxLength: 6 },
    ),
  )
  .map(([scorers, cases]) => ({
    scorers,
    cases: cases.map((c) =>
      item(
        c.caseId,
        Object.fromEntries(
          SCORERS.flatMap((scorer, i) =>
            scorers.includes(scorer) && c.scores[i] !== undefined ? [[scorer, c.scores[i]]] : [],
          ),
        ),
      ),
    ),
  }));

const MIRROR = { better: "worse", worse: "better", mixed: "mixed", same: "same", missing: "missing" } as const;
const byId = (rows: CompareRow[]) => new Map(rows.map((row) => [row.caseId, row]));

describe("compareCases, any two experiments", () => {
  it("has each case of either once, counts that add up, and deltas of b − a", () => {
    fc.assert(
      fc.property(experiment, experiment, (a, b) => {
        const rows = compareCases(a, b);
        const ids = new Set([...a.cases, ...b.cases].map((c) => c.caseId));
        expect(rows.map((row) => row.caseId).sort()).toEqual([...ids].sort());
        const counts = countChanges(rows);
        expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(rows.length);
        for (const row of rows) {
          expect(row.change).toBe(caseChange(row.cells));
          for (const cell of row.cells) {
            expect(cell.change).toBe(scoreChange(cell.a, cell.b));
            if (cell.change === "missing") expect(cell.delta).toBeUndefined();
            else expect(cell.delta).toBe((cell.b ?? Number.NaN) - (cell.a ?? Number.NaN));
          }
        }
      }),
    );
  });

  it("swapping the two swaps better and worse, and nothing else", () => {
    fc.assert(
      fc.property(experiment, experiment, (a, b) => {
        const forward = byId(compareCases(a, b));
        const backward = byId(compareCases(b, a));
        for (const [caseId, row] of forward) {
          const mirrored = backward.get(caseId);
          expect(mirrored?.change).toBe(MIRROR[row.change]);
        }
        const counts = countChanges([...forward.values()]);
        const swapped = countChanges([...backward.values()]);
        expect(swapped).toEqual({ ...counts, better: counts.worse, worse: counts.better });
      }),
    );
  });

  it("an experiment against itself: every case the same, or missing where nothing was scored", () => {
    fc.assert(
      fc.property(experiment, (a) => {
        for (const row of compareCases(a, a))
          expect(row.change).toBe(Object.keys(row.a?.scores ?? {}).length > 0 ? "same" : "missing");
      }),
    );
  });
});
