/** The results table every benchmark prints: one row per (subject, metric), median and spread. */
import { summarize } from "./stats.ts";

export interface ResultRow {
  /** What was measured, e.g. "SqliteStore (file)". */
  subject: string;
  /** e.g. "single-event appends". */
  metric: string;
  /** e.g. "appends/s", "ms", "MiB". */
  unit: string;
  /** One value per round. */
  samples: number[];
  /** The goal, when there is one; `higher` says which direction is better. */
  target?: { value: number; higher: boolean };
}

/** Thousands separators, and as many decimals as a small number needs to say something. */
export function formatNumber(value: number): string {
  const size = Math.abs(value);
  const digits = size >= 100 ? 0 : size >= 10 ? 1 : size >= 0.1 || size === 0 ? 2 : 3;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function meets(row: ResultRow, value: number): string {
  if (row.target === undefined) return "";
  const ok = row.target.higher ? value >= row.target.value : value <= row.target.value;
  return `${row.target.higher ? "≥" : "≤"} ${formatNumber(row.target.value)} ${ok ? "✓ met" : "✗ missed"}`;
}

/** A Markdown table: subject, metric, median, min – max, rounds, target. */
export function formatTable(rows: readonly ResultRow[]): string {
  const header = ["subject", "metric", "median", "min – max", "rounds", "target (median)"];
  const body = rows.map((row) => {
    const s = summarize(row.samples);
    return [
      row.subject,
      `${row.metric} (${row.unit})`,
      formatNumber(s.median),
      `${formatNumber(s.min)} – ${formatNumber(s.max)}`,
      String(s.n),
      meets(row, s.median),
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => (cells[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
}
