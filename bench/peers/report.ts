/**
 * The peer benchmark's results: rows from every child merged over rounds, the comparison table
 * (median, min – max, ratio to Sema) and the verdict on each goal of issue 7. Pure functions.
 */
import { summarize } from "../lib/stats.ts";
import { formatNumber, type ResultRow } from "../lib/table.ts";

/** A result row of one workload (its `key` in WORKLOADS); `subject` is the framework. */
export interface PeerRow extends ResultRow {
  workload: string;
}

/** The framework every ratio is relative to. */
export const BASELINE = "Sema";

/** Sema itself, by any of its entry points (`runLeg`, `createAgent`): never a peer. */
function isSema(subject: string): boolean {
  return subject === BASELINE || subject.startsWith(`${BASELINE} `);
}

function rowKey(row: PeerRow): string {
  return `${row.workload}\u0000${row.subject}\u0000${row.metric}`;
}

/** One row per (workload, framework, metric) with the samples of every round, in first-seen order. */
export function mergeRounds(rows: readonly PeerRow[]): PeerRow[] {
  const merged = new Map<string, PeerRow>();
  for (const row of rows) {
    const key = rowKey(row);
    const seen = merged.get(key);
    if (seen === undefined) merged.set(key, { ...row, samples: [...row.samples] });
    else seen.samples.push(...row.samples);
  }
  return [...merged.values()];
}

/** The median of (workload, framework, metric), if measured. */
export function medianOf(
  rows: readonly PeerRow[],
  workload: string,
  subject: string,
  metric: string,
): number | undefined {
  const row = rows.find((r) => r.workload === workload && r.subject === subject && r.metric === metric);
  return row === undefined || row.samples.length === 0 ? undefined : summarize(row.samples).median;
}

/** `value / base` as "12.3×" (lower-is-better metrics: above 1 means Sema does better). */
export function formatRatio(value: number, base: number | undefined): string {
  if (base === undefined || base <= 0 || !Number.isFinite(value / base)) return "–";
  return `${formatNumber(value / base)}×`;
}

/**
 * A Markdown table: workload, framework, metric, median, min – max, rounds, and the median over
 * Sema's median for the same workload and metric. `titles` maps workload keys to their titles.
 */
export function formatComparison(rows: readonly PeerRow[], titles: ReadonlyMap<string, string>): string {
  const header = ["workload", "framework", "metric", "median", "min – max", "rounds", "÷ Sema"];
  const body = rows.map((row) => {
    const s = summarize(row.samples);
    return [
      titles.get(row.workload) ?? row.workload,
      row.subject,
      `${row.metric} (${row.unit})`,
      formatNumber(s.median),
      `${formatNumber(s.min)} – ${formatNumber(s.max)}`,
      String(s.n),
      formatRatio(s.median, medianOf(rows, row.workload, BASELINE, row.metric)),
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => (cells[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
}

/** One goal of issue 7 and whether this run met it. */
export interface GoalVerdict {
  goal: string;
  /** The figures behind the verdict. */
  detail: string;
  /** Undefined when the run did not measure what the goal needs. */
  met: boolean | undefined;
}

/** The framework whose LangGraph durable figures the durable goals compare against. */
export const DURABLE_PEER = "LangGraph ReAct";
/** How much Sema's durable per-turn cost may grow from 200 to 1,000 turns and still count as flat. */
export const FLAT_TOLERANCE = 1.25;

const PER_TURN = "wall per turn";
const RESUME = "resume: open → first model call";

/** The verdict on each goal, from the merged rows. */
export function goalVerdicts(rows: readonly PeerRow[]): GoalVerdict[] {
  const verdicts: GoalVerdict[] = [];
  for (const workload of ["turns-200", "turns-200x3", "concurrent"]) {
    const sema = medianOf(rows, workload, BASELINE, PER_TURN);
    const peers = rows.filter((r) => r.workload === workload && r.metric === PER_TURN && !isSema(r.subject));
    const fastest = peers
      .map((r) => ({ name: r.subject, median: summarize(r.samples).median }))
      .sort((a, b) => a.median - b.median)[0];
    const ratio = sema === undefined || fastest === undefined ? undefined : fastest.median / sema;
    verdicts.push({
      goal: `${workload}: Sema's per-turn overhead ≥ 3× lower than the fastest peer`,
      detail:
        ratio === undefined || fastest === undefined
          ? "not measured"
          : `fastest peer ${fastest.name} ${formatNumber(fastest.median)} ms/turn vs Sema ${formatNumber(sema ?? 0)}: ${formatNumber(ratio)}×`,
      met: ratio === undefined ? undefined : ratio >= 3,
    });
  }
  for (const workload of ["durable-200", "durable-1000"]) {
    const sema = medianOf(rows, workload, BASELINE, PER_TURN);
    const peer = medianOf(rows, workload, DURABLE_PEER, PER_TURN);
    const ratio = sema === undefined || peer === undefined ? undefined : peer / sema;
    verdicts.push({
      goal: `${workload}: durable Sema ≥ 100× below LangGraph + SQLite per turn`,
      detail:
        ratio === undefined
          ? "not measured"
          : `${formatNumber(peer ?? 0)} vs ${formatNumber(sema ?? 0)} ms/turn: ${formatNumber(ratio)}×`,
      met: ratio === undefined ? undefined : ratio >= 100,
    });
  }
  const short = medianOf(rows, "durable-200", BASELINE, PER_TURN);
  const long = medianOf(rows, "durable-1000", BASELINE, PER_TURN);
  verdicts.push({
    goal: `durable Sema flat as tasks grow (1,000-turn per-turn cost ≤ ${FLAT_TOLERANCE}× the 200-turn one)`,
    detail:
      short === undefined || long === undefined
        ? "not measured"
        : `${formatNumber(short)} → ${formatNumber(long)} ms/turn (${formatNumber(long / short)}×)`,
    met: short === undefined || long === undefined ? undefined : long <= short * FLAT_TOLERANCE,
  });
  const semaResume = medianOf(rows, "resume", BASELINE, RESUME);
  const peerResume = medianOf(rows, "resume", DURABLE_PEER, RESUME);
  const resumeRatio = semaResume === undefined || peerResume === undefined ? undefined : peerResume / semaResume;
  verdicts.push({
    goal: "resume of a 1,000-turn task ≥ 10× faster than LangGraph's",
    detail:
      resumeRatio === undefined
        ? "not measured"
        : `${formatNumber(peerResume ?? 0)} vs ${formatNumber(semaResume ?? 0)} ms: ${formatNumber(resumeRatio)}×`,
    met: resumeRatio === undefined ? undefined : resumeRatio >= 10,
  });
  return verdicts;
}

/** The verdicts as a Markdown list. */
export function formatVerdicts(verdicts: readonly GoalVerdict[]): string {
  return verdicts
    .map((v) => `- ${v.met === undefined ? "– not measured" : v.met ? "✓ met" : "✗ missed"}: ${v.goal} — ${v.detail}`)
    .join("\n");
}
