// The CI experiment's own test: the comparison finds the regression planted in the candidate (it
// skips the lookup on case `delivered` and answers wrongly), and the gates fail on the candidate
// but pass on the baseline, so the CI step fails for the right reason.
import { MemoryStore } from "@sema-agent/core";
import { checkGates, compareExperiments } from "@sema-agent/evals";
import { describe, expect, it } from "vitest";
import { GATES, runVariant } from "./experiment.ts";

async function variants() {
  const store = new MemoryStore();
  return { baseline: await runVariant(store, "baseline"), candidate: await runVariant(store, "candidate") };
}

describe("the CI experiment", () => {
  it("finds the planted regression: case delivered, on both scorers, and nothing else", async () => {
    const { baseline, candidate } = await variants();
    expect(baseline.means).toEqual({ "exact-match": 1, "tool-trajectory": 1 });
    expect(baseline.totals).toMatchObject({ cases: 6, completed: 6 });
    const comparison = compareExperiments(baseline, candidate);
    expect(comparison.regressions.map((r) => [r.caseId, r.scorer, r.before, r.after])).toEqual([
      ["delivered", "exact-match", 1, 0],
      ["delivered", "tool-trajectory", 1, 0],
    ]);
    expect(comparison.improvements).toEqual([]);
    const delivered = candidate.cases.find((c) => c.caseId === "delivered");
    expect(delivered?.scores["exact-match"]?.reason).toContain('got "Yes, order A-1001 is on its way."');
    expect(delivered?.scores["tool-trajectory"]?.reason).toContain(
      'call 1 was never made: expected lookup_order {"order":"A-1001"}',
    );
  });

  it("fails the gates on the candidate and passes them on the baseline", async () => {
    const { baseline, candidate } = await variants();
    expect(checkGates(baseline, GATES)).toEqual([]);
    expect(checkGates(candidate, GATES).map((failure) => failure.message)).toEqual([
      "exact-match mean 0.833 is not >= 0.9",
      "tool-trajectory mean 0.833 is not >= 0.9",
    ]);
  });
});
