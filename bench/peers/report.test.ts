import { describe, expect, it } from "vitest";
import { formatComparison, formatRatio, goalVerdicts, mergeRounds, type PeerRow } from "./report.ts";

const row = (workload: string, subject: string, metric: string, samples: number[]): PeerRow => ({
  workload,
  subject,
  metric,
  unit: "ms",
  samples,
});

describe("peer report", () => {
  it("merges the rounds of a cell into one row, keeping first-seen order", () => {
    const merged = mergeRounds([
      row("w", "Sema", "wall per turn", [1]),
      row("w", "pi", "wall per turn", [2]),
      row("w", "Sema", "wall per turn", [3]),
    ]);
    expect(merged.map((r) => [r.subject, r.samples])).toEqual([
      ["Sema", [1, 3]],
      ["pi", [2]],
    ]);
  });

  it("prints each median over Sema's for the same workload and metric", () => {
    expect(formatRatio(6, 2)).toBe("3.00×");
    expect(formatRatio(6, 0)).toBe("–");
    expect(formatRatio(6, undefined)).toBe("–");
    const table = formatComparison(
      [row("w", "Sema", "wall per turn", [1, 2, 3]), row("w", "pi", "wall per turn", [30, 40, 50])],
      new Map([["w", "(2) the workload"]]),
    ).split("\n");
    expect(table).toHaveLength(4);
    expect(new Set(table.map((line) => line.length)).size).toBe(1);
    expect(table[2]).toContain("1.00 – 3.00");
    expect(table[2]).toContain("1.00×");
    expect(table[3]).toContain("(2) the workload");
    expect(table[3]).toContain("20.0×");
  });

  it("judges each goal on medians, and says when a goal was not measured", () => {
    const rows = [
      row("turns-200", "Sema", "wall per turn", [0.1]),
      row("turns-200", "pi", "wall per turn", [0.2]),
      row("turns-200", "LangGraph ReAct", "wall per turn", [3]),
      row("turns-200x3", "Sema", "wall per turn", [0.1]),
      row("turns-200x3", "AI SDK", "wall per turn", [0.5]),
      row("durable-200", "Sema", "wall per turn", [0.1]),
      row("durable-200", "LangGraph ReAct", "wall per turn", [20]),
      row("durable-1000", "Sema", "wall per turn", [0.12]),
      row("durable-1000", "LangGraph ReAct", "wall per turn", [5]),
      row("resume", "Sema", "resume: open → first model call", [10]),
      row("resume", "LangGraph ReAct", "resume: open → first model call", [200]),
    ];
    const verdicts = goalVerdicts(rows);
    expect(verdicts.map((v) => v.met)).toEqual([false, true, undefined, true, false, true, true]);
    expect(verdicts[0]?.detail).toContain("fastest peer pi");
  });

  it("never counts Sema's own entry points (createAgent) as a peer", () => {
    const rows = [
      row("turns-200", "Sema", "wall per turn", [0.1]),
      row("turns-200", "Sema createAgent", "wall per turn", [0.101]),
      row("turns-200", "pi", "wall per turn", [0.5]),
    ];
    const [verdict] = goalVerdicts(rows);
    expect(verdict?.detail).toContain("fastest peer pi");
    expect(verdict?.met).toBe(true);
  });
});
