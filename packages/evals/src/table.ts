/** The suite's table, as Markdown (what `sema eval injection` prints and bench/README.md holds). */
import type { Ratio, SuiteReport } from "./run-suite.ts";

function percent(r: Ratio): string {
  if (r.total === 0) return "–";
  return `${Math.round((100 * r.count) / r.total)} % (${r.count}/${r.total})`;
}

function perTask(r: Ratio): string {
  if (r.total === 0) return "–";
  return `${(r.count / r.total).toFixed(2)} (${r.count}/${r.total})`;
}

const LABELS: Record<string, string> = {
  naive: "naive loop",
  framing: "Sema, framing only",
  policy: "Sema, framing + policy",
};

/** The table: one row per model × condition × environment, with the four metrics; columns padded. */
export function formatTable(report: SuiteReport): string {
  const header = [
    "Model",
    "Condition",
    "Environment",
    "Attack success",
    "Utility under attack",
    "Benign utility",
    "Approvals per benign task",
  ];
  const body = report.rows.map((row) => [
    row.model,
    LABELS[row.condition] ?? row.condition,
    row.environment,
    percent(row.attackSuccess),
    percent(row.utilityUnderAttack),
    percent(row.benignUtility),
    perTask(row.benignApprovals),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]?.length ?? 0)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
