import { MemoryStore } from "@sema-agent/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareExperiments } from "./compare.ts";
import { dataset, geoAgent, scorers } from "./experiment.fixture.ts";
import { formatComparison, formatExperiment } from "./format-results.ts";
import { checkGates, parseGate } from "./gates.ts";
import { runExperiment } from "./run-experiment.ts";

async function variants() {
  const store = new MemoryStore();
  const a = await runExperiment({
    store,
    agent: geoAgent("A").agent,
    dataset: await dataset(),
    scorers: scorers(),
    name: "A",
  });
  const b = await runExperiment({
    store,
    agent: geoAgent("B").agent,
    dataset: await dataset(),
    scorers: scorers(),
    name: "B",
  });
  return { a, b };
}

describe("compareExperiments", () => {
  it("finds the planted regression, worst first, and the means' change", async () => {
    const { a, b } = await variants();
    const comparison = compareExperiments(a, b);
    expect(comparison.scorers).toContainEqual({ scorer: "exact-match", a: 1, b: 0.75, delta: -0.25 });
    expect(comparison.scorers).toContainEqual({ scorer: "tool-trajectory", a: 1, b: 1, delta: 0 });
    expect(comparison.regressions.map((r) => [r.caseId, r.scorer, r.delta])).toEqual([
      ["spain", "exact-match", -1],
      ["spain", "includes", -1],
    ]);
    expect(comparison.improvements).toEqual([]);
    expect(compareExperiments(b, a).improvements.map((r) => r.caseId)).toEqual(["spain", "spain"]);
    const text = formatComparison(comparison);
    expect(text).toContain("exact-match");
    expect(text).toContain("-0.25");
    expect(text).toContain("regressed:\n  spain exact-match: 1 -> 0 (-1)");
  });
});

describe("gates", () => {
  it("pass and fail on the means", async () => {
    const { a, b } = await variants();
    const gate = parseGate("exact-match >= 0.9");
    expect(checkGates(a, [gate])).toEqual([]);
    expect(checkGates(b, [gate])).toEqual([{ gate, mean: 0.75, message: "exact-match mean 0.75 is not >= 0.9" }]);
    expect(checkGates(b, [parseGate("tool-trajectory==1"), parseGate(" includes > 0.5 ")])).toEqual([]);
    expect(() => checkGates(a, [parseGate("judge >= 0.5")])).toThrow(/not a scorer of the experiment/);
  });

  it("parse exactly `<scorer> <op> <number>` (property: what they print, they read)", () => {
    for (const bad of [
      "",
      "exact-match",
      "exact-match >= ",
      ">= 0.9",
      "exact-match => 0.9",
      "exact-match >= x",
      "a b >= 1",
    ])
      expect(() => parseGate(bad), bad).toThrow(/is not "<scorer> <op> <number>"/);
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.:-]{0,20}$/),
        fc.constantFrom(">=", ">", "<=", "<", "=="),
        fc.double({ min: -10, max: 10, noNaN: true }).map((x) => Math.round(x * 1000) / 1000 + 0),
        (scorer, op, threshold) => {
          expect(parseGate(`${scorer} ${op} ${threshold}`)).toEqual({ scorer, op, threshold });
        },
      ),
    );
  });
});

describe("formatExperiment", () => {
  it("prints a row per case and the means", async () => {
    const { b } = await variants();
    const text = formatExperiment(b);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^experiment \S+ \(B\): agent default, 4 cases$/);
    expect(lines[1]).toMatch(/^case\s+exact-match\s+includes\s+tool-trajectory\s+status\s+turns\s+tokens\s+cost\s+ms$/);
    expect(lines.find((line) => line.startsWith("spain"))).toMatch(/^spain\s+0\s+0\s+1\s+completed\s+2\s+30\s+-/);
    expect(lines.at(-1)).toMatch(/^mean\s+0\.75\s+0\.75\s+1\s+4\/4 completed\s+8\s+120\s+-/);
  });
});
