/** How the generated tables of bench/README.md write figures, pick runs and rows, and lay out a run's rows. */
import type { LoadedResults } from "./results.ts";
import type { MeasuredResults, MeasureRow, ResultsFile } from "./results-schema.ts";

// ---------------------------------------------------------------- formatting

/** As many decimals as the size needs (3 below 0.1, 2 below 10, 1 below 100, none above), no trailing zeros. */
export function formatFigure(value: number): string {
  const size = Math.abs(value);
  const digits = size >= 100 ? 0 : size >= 10 ? 1 : size >= 0.1 || size === 0 ? 2 : 3;
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

function formatLoad(load: number): string {
  return load.toFixed(load < 10 ? 2 : 1);
}

/** Whether a row meets its target: judged on the median, or on the worse end of a range. */
function meets(row: MeasureRow): boolean | undefined {
  const { target } = row;
  if (target === undefined) return undefined;
  const value = row.median ?? (target.higher ? row.min : row.max);
  if (value === undefined) return undefined;
  return target.higher ? value >= target.value : value <= target.value;
}

export function targetText(row: MeasureRow): string {
  return row.target === undefined ? "" : `${row.target.higher ? "≥" : "≤"} ${formatFigure(row.target.value)}`;
}

export function mark(row: MeasureRow): string {
  const met = meets(row);
  return met === undefined ? "" : met ? " ✓" : " ✗";
}

/** The figure alone: median, median (min – max), or min – max. */
export function figure(row: MeasureRow): string {
  const { median, min, max } = row;
  const range =
    min !== undefined && max !== undefined && min !== max ? `${formatFigure(min)} – ${formatFigure(max)}` : "";
  if (median === undefined) return range === "" ? formatFigure(min ?? max ?? Number.NaN) : range;
  return range === "" ? formatFigure(median) : `${formatFigure(median)} (${range})`;
}

/** A table cell: the figure, its mark against the target, and the row's note. */
export function cell(row: MeasureRow | undefined): string {
  if (row === undefined) return "—";
  return `${figure(row)}${mark(row)}${row.note === undefined ? "" : `; ${row.note}`}`;
}

/** A Markdown table, columns padded (as the benchmarks print theirs). */
export function markdownTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, 3, ...body.map((cells) => (cells[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, column) => text.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
}

/** "2026-11-30 00:41 UTC" or "2026-11-30". */
function when(run: ResultsFile): string {
  const { date } = run;
  return date.length === 10 ? date : `${date.slice(0, 10)} ${date.slice(11, 16)} UTC`;
}

/** A run's short name for a column: its day (and time, if known) and commit. */
export function runLabel(run: ResultsFile): string {
  const time = run.date.length > 10 ? ` ${run.date.slice(11, 16)}` : "";
  return `${run.date.slice(0, 10)}${time}, ${run.commit}${run.baseline === true ? " (before)" : ""}`;
}

/** One sentence on a run: when, which code, the machine's load, the command, and its note. */
export function describeRun(run: ResultsFile): string {
  const { machine } = run;
  const parts = [`${when(run)} at ${run.commit}`];
  const load: string[] = [];
  if (machine.load1 !== undefined) load.push(`load average ${formatLoad(machine.load1)} at the start`);
  if (machine.loadRange !== undefined)
    load.push(`${load.length === 0 ? "load average " : ""}${machine.loadRange.map(formatLoad).join("–")}`);
  if (load.length > 0) parts.push(load.join(", "));
  if (machine.cpus !== undefined && machine.cpus !== 2) parts.push(`${machine.cpus} CPUs`);
  if (machine.note !== undefined) parts.push(machine.note);
  const rounds = new Set(
    run.rows.flatMap((row) => ("rounds" in row && row.rounds !== undefined && row.rounds > 1 ? [row.rounds] : [])),
  );
  const each = rounds.size === 1 ? `, ${[...rounds][0]} rounds` : "";
  return `${parts.join(", ")}; \`${run.command}\`${each}.${run.note === undefined ? "" : ` ${run.note}`}`;
}

/** The runs shown, newest first: "Latest: …", then the others ("Earlier: …") on one line. */
export function runLines(runs: readonly ResultsFile[]): string {
  const [latest, ...earlier] = [...runs].reverse();
  if (latest === undefined) return "";
  const lines = [`- Latest: ${describeRun(latest)}`];
  if (earlier.length > 0) lines.push(`- Earlier: ${earlier.map(describeRun).join(" ")}`);
  return lines.join("\n");
}

/** What the runs showed, newest first, as a list (empty when none said anything). */
export function notesOf(runs: readonly ResultsFile[]): string {
  return [...runs]
    .reverse()
    .flatMap((run) => run.notes ?? [])
    .map((note) => `- ${note}`)
    .join("\n");
}

/** The runs shown and what they showed, as one list. */
export function about(runs: readonly ResultsFile[]): string {
  return [runLines(runs), notesOf(runs)].filter((block) => block !== "").join("\n");
}

export function joinBlocks(...blocks: string[]): string {
  return blocks.filter((block) => block !== "").join("\n\n");
}

// ---------------------------------------------------------------- selecting runs and rows

export function runsOf(all: readonly LoadedResults[], bench: string): MeasuredResults[] {
  return all
    .map((loaded) => loaded.results)
    .filter((run): run is MeasuredResults => run.bench === bench && run.bench !== "injection");
}

export function lastRuns<Run>(runs: readonly Run[], count: number, keep: (run: Run) => boolean = () => true): Run[] {
  return runs.filter(keep).slice(-count);
}

export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`bench/results has no ${what}`);
  return value;
}

export function rowOf(
  run: MeasuredResults,
  subject: string,
  metric: string,
  workload?: string,
): MeasureRow | undefined {
  return run.rows.find(
    (row) => row.subject === subject && row.metric === metric && (workload === undefined || row.workload === workload),
  );
}

export const hasMetric = (metric: string | RegExp) => (run: MeasuredResults) =>
  run.rows.some((row) => (typeof metric === "string" ? row.metric === metric : metric.test(row.metric)));

const keyOf = (row: MeasureRow) => `${row.workload ?? ""}\u0000${row.subject}\u0000${row.metric}`;

// ---------------------------------------------------------------- generic tables

/**
 * subject | metric | one column per run | target: the same figures across runs, oldest run on
 * the left; rows in the order the runs first list them.
 */
export function compareTable(
  runs: readonly MeasuredResults[],
  keep: (row: MeasureRow) => boolean = () => true,
): string {
  // Rows in the order of the run that has the most of them, then any the others add.
  const rows = new Map<string, MeasureRow>();
  const fullest = [...runs].sort((a, b) => b.rows.length - a.rows.length);
  for (const run of fullest)
    for (const row of run.rows) if (keep(row) && !rows.has(keyOf(row))) rows.set(keyOf(row), row);
  const ordered = [...rows.values()];
  const withTarget = ordered.some((row) => row.target !== undefined);
  const header = ["subject", "metric", ...runs.map(runLabel), ...(withTarget ? ["target"] : [])];
  const body = ordered.map((first) => {
    const cells = runs.map((run) => cell(run.rows.find((row) => keyOf(row) === keyOf(first))));
    return [first.subject, `${first.metric} (${first.unit})`, ...cells, ...(withTarget ? [targetText(first)] : [])];
  });
  return markdownTable(header, body);
}

/**
 * metric | one column per subject (per subject and run, when there are several runs) | target:
 * the compact layout, for benchmarks whose subjects share their metrics.
 */
export function pivotTable(runs: readonly MeasuredResults[], keep: (row: MeasureRow) => boolean = () => true): string {
  const fullest = [...runs].sort((a, b) => b.rows.length - a.rows.length);
  const metrics = new Map<string, MeasureRow>();
  const subjects: string[] = [];
  for (const run of fullest)
    for (const row of run.rows.filter(keep)) {
      if (!metrics.has(row.metric)) metrics.set(row.metric, row);
      if (!subjects.includes(row.subject)) subjects.push(row.subject);
    }
  // A column per subject and run, named by the run's commit (and its day and time if two runs share one).
  const commits = runs.map((run) => run.commit);
  const runName = (run: MeasuredResults) =>
    new Set(commits).size === commits.length
      ? `${run.commit}${run.baseline === true ? " (before)" : ""}`
      : runLabel(run);
  const columns = subjects.flatMap((subject) =>
    runs
      .filter((run) => run.rows.some((row) => row.subject === subject && keep(row)))
      .map((run) => ({
        subject,
        run,
        title: runs.length === 1 ? subject : `${subject}, ${runName(run)}`,
      })),
  );
  const withTarget = runs.some((run) => run.rows.some((row) => keep(row) && row.target !== undefined));
  const body = [...metrics.values()].map((first) => {
    const rows = columns.map(({ subject, run }) => rowOf(run, subject, first.metric));
    const targets = [...new Set(rows.map((row) => (row === undefined ? "" : targetText(row))).filter((t) => t !== ""))];
    return [`${first.metric} (${first.unit})`, ...rows.map(cell), ...(withTarget ? [targets.join(" / ")] : [])];
  });
  return markdownTable(["metric", ...columns.map((column) => column.title), ...(withTarget ? ["target"] : [])], body);
}

/** The last `count` runs of a benchmark (the newest last); throws if it has none. */
export function shownRuns(all: readonly LoadedResults[], bench: string, count: number): MeasuredResults[] {
  const runs = lastRuns(runsOf(all, bench), count);
  required(runs.at(-1), `${bench} run`);
  return runs;
}

/** The last `count` runs in the compact layout, then what they were and showed. */
export function pivotSection(all: readonly LoadedResults[], bench: string, count = 1): string {
  const runs = shownRuns(all, bench, count);
  return joinBlocks(pivotTable(runs), about(runs));
}
