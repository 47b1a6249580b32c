/**
 * Experiments as text for a terminal or a CI log: one row per case (id, each scorer's value,
 * status, turns, tokens, cost, time) and the means; a comparison as the means with their change
 * and the cases that fell or rose.
 */
import type { ExperimentComparison } from "./compare.ts";
import type { ExperimentResult } from "./experiment-results.ts";
import { round } from "./gates.ts";

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function money(usd: number | undefined): string {
  return usd === undefined ? "-" : `$${usd.toFixed(4)}`;
}

/** An experiment's results as a table, then its means and totals. */
export function formatExperiment(result: ExperimentResult): string {
  const header = ["case", ...result.scorers, "status", "turns", "tokens", "cost", "ms"];
  const rows = result.cases.map((c) => [
    c.caseId,
    ...result.scorers.map((s) => {
      const score = c.scores[s];
      if (score !== undefined) return round(score.value);
      return c.scoreErrors?.[s] === undefined ? "-" : "error";
    }),
    c.error === undefined ? c.status : `${c.status} (error)`,
    String(c.turns),
    String(c.usage.inputTokens + c.usage.outputTokens),
    money(c.costUsd),
    String(c.durationMs),
  ]);
  const t = result.totals;
  const means = [
    "mean",
    ...result.scorers.map((s) => {
      const mean = result.means[s];
      return mean === undefined ? "-" : round(mean);
    }),
    `${t.completed}/${t.cases} completed`,
    String(t.turns),
    String(t.inputTokens + t.outputTokens),
    money(t.costUsd),
    String(t.durationMs),
  ];
  const title = `experiment ${result.experimentId}${result.name === "" ? "" : ` (${result.name})`}: agent ${result.agent}${result.model === undefined ? "" : ` on ${result.model}`}, ${t.cases} cases`;
  const lines = [title, table([header, ...rows, means])];
  const errors = result.cases.flatMap((c) => [
    ...(c.error === undefined ? [] : [`  ${c.caseId}: ${c.error}`]),
    ...Object.entries(c.scoreErrors ?? {}).map(([s, e]) => `  ${c.caseId} ${s}: ${e}`),
  ]);
  if (errors.length > 0) lines.push("errors:", ...errors);
  return lines.join("\n");
}

function signed(delta: number | undefined): string {
  if (delta === undefined) return "-";
  return delta > 0 ? `+${round(delta)}` : round(delta);
}

/** A comparison as text: the means and their change, then the regressions (worst first) and improvements. */
export function formatComparison(comparison: ExperimentComparison): string {
  const label = (e: { experimentId: string; name: string }) =>
    e.name === "" ? e.experimentId : `${e.name} (${e.experimentId})`;
  const lines = [`A ${label(comparison.a)}`, `B ${label(comparison.b)}`];
  lines.push(
    table([
      ["scorer", "A", "B", "change"],
      ...comparison.scorers.map((s) => [
        s.scorer,
        s.a === undefined ? "-" : round(s.a),
        s.b === undefined ? "-" : round(s.b),
        signed(s.delta),
      ]),
    ]),
  );
  const changes = (title: string, list: ExperimentComparison["regressions"]) => {
    if (list.length === 0) return;
    lines.push(`${title}:`);
    for (const c of list)
      lines.push(`  ${c.caseId} ${c.scorer}: ${round(c.before)} -> ${round(c.after)} (${signed(c.delta)})`);
  };
  changes("regressed", comparison.regressions);
  changes("improved", comparison.improvements);
  if (comparison.onlyA.length > 0) lines.push(`only in A: ${comparison.onlyA.join(", ")}`);
  if (comparison.onlyB.length > 0) lines.push(`only in B: ${comparison.onlyB.join(", ")}`);
  return lines.join("\n");
}
