/**
 * The tables of bench/README.md (and the figures the docs quote), generated from the results files
 * under bench/results/. Each generated section sits between `<!-- results:<name>:start -->` and
 * `<!-- results:<name>:end -->`; `npm run bench:tables` rewrites them, and results.test.ts fails
 * when one differs from what these functions make of the files now.
 *
 * Each benchmark's section shows its latest run (and, where a benchmark has one, a short trend:
 * the runs before it, or the "before" a change was measured against), then what the run showed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { replaceSection } from "./readme-section.ts";
import { type LoadedResults, loadResults } from "./results.ts";
import type { InjectionResults, InjectionRow, MeasuredResults, MeasureRow, ResultsFile } from "./results-schema.ts";

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

function targetText(row: MeasureRow): string {
  return row.target === undefined ? "" : `${row.target.higher ? "≥" : "≤"} ${formatFigure(row.target.value)}`;
}

function mark(row: MeasureRow): string {
  const met = meets(row);
  return met === undefined ? "" : met ? " ✓" : " ✗";
}

/** The figure alone: median, median (min – max), or min – max. */
function figure(row: MeasureRow): string {
  const { median, min, max } = row;
  const range =
    min !== undefined && max !== undefined && min !== max ? `${formatFigure(min)} – ${formatFigure(max)}` : "";
  if (median === undefined) return range === "" ? formatFigure(min ?? max ?? Number.NaN) : range;
  return range === "" ? formatFigure(median) : `${formatFigure(median)} (${range})`;
}

/** A table cell: the figure, its mark against the target, and the row's note. */
function cell(row: MeasureRow | undefined): string {
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
function runLabel(run: ResultsFile): string {
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
function runLines(runs: readonly ResultsFile[]): string {
  const [latest, ...earlier] = [...runs].reverse();
  if (latest === undefined) return "";
  const lines = [`- Latest: ${describeRun(latest)}`];
  if (earlier.length > 0) lines.push(`- Earlier: ${earlier.map(describeRun).join(" ")}`);
  return lines.join("\n");
}

/** What the runs showed, newest first, as a list (empty when none said anything). */
function notesOf(runs: readonly ResultsFile[]): string {
  return [...runs]
    .reverse()
    .flatMap((run) => run.notes ?? [])
    .map((note) => `- ${note}`)
    .join("\n");
}

/** The runs shown and what they showed, as one list. */
function about(runs: readonly ResultsFile[]): string {
  return [runLines(runs), notesOf(runs)].filter((block) => block !== "").join("\n");
}

function joinBlocks(...blocks: string[]): string {
  return blocks.filter((block) => block !== "").join("\n\n");
}

// ---------------------------------------------------------------- selecting runs and rows

function runsOf(all: readonly LoadedResults[], bench: string): MeasuredResults[] {
  return all
    .map((loaded) => loaded.results)
    .filter((run): run is MeasuredResults => run.bench === bench && run.bench !== "injection");
}

function lastRuns<Run>(runs: readonly Run[], count: number, keep: (run: Run) => boolean = () => true): Run[] {
  return runs.filter(keep).slice(-count);
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`bench/results has no ${what}`);
  return value;
}

function rowOf(run: MeasuredResults, subject: string, metric: string, workload?: string): MeasureRow | undefined {
  return run.rows.find(
    (row) => row.subject === subject && row.metric === metric && (workload === undefined || row.workload === workload),
  );
}

const hasMetric = (metric: string | RegExp) => (run: MeasuredResults) =>
  run.rows.some((row) => (typeof metric === "string" ? row.metric === metric : metric.test(row.metric)));

const keyOf = (row: MeasureRow) => `${row.workload ?? ""}\u0000${row.subject}\u0000${row.metric}`;

// ---------------------------------------------------------------- generic tables

/**
 * subject | metric | one column per run | target: the same figures across runs, oldest run on
 * the left; rows in the order the runs first list them.
 */
function compareTable(runs: readonly MeasuredResults[], keep: (row: MeasureRow) => boolean = () => true): string {
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
function pivotTable(runs: readonly MeasuredResults[], keep: (row: MeasureRow) => boolean = () => true): string {
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
function shownRuns(all: readonly LoadedResults[], bench: string, count: number): MeasuredResults[] {
  const runs = lastRuns(runsOf(all, bench), count);
  required(runs.at(-1), `${bench} run`);
  return runs;
}

/** The last `count` runs in the compact layout, then what they were and showed. */
function pivotSection(all: readonly LoadedResults[], bench: string, count = 1): string {
  const runs = shownRuns(all, bench, count);
  return joinBlocks(pivotTable(runs), about(runs));
}

// ---------------------------------------------------------------- per benchmark

function harnessSection(all: readonly LoadedResults[]): string {
  const runs = runsOf(all, "harness");
  const run = required(runs.filter(hasMetric("wall per turn")).at(-1), "harness run with wall per turn");
  // Rows: the metric; columns: store × the task's length. Tracing's ratios get a table of their own.
  const tracingRatio = "tracing on ÷ off, CPU per turn";
  const main = pivotTable([run], (row) => !row.metric.includes("tracing on"));
  const tracing = lastRuns(runs, 3, hasMetric(tracingRatio));
  return joinBlocks(
    main,
    about([run]),
    tracing.length === 0
      ? ""
      : joinBlocks(
          "Tracing on ÷ off, CPU per turn (the traced twin of each round), in the latest runs that measured it:",
          compareTable(tracing, (row) => row.metric === tracingRatio),
          about(tracing.filter((other) => other !== run)),
        ),
  );
}

function sseSection(all: readonly LoadedResults[]): string {
  const runs = runsOf(all, "sse");
  const fanOut = (row: MeasureRow) => row.subject.startsWith("SSE fan-out");
  const inputs = (row: MeasureRow) => row.subject === "POST /inputs";
  const shown = lastRuns(runs, 2, (run) => run.rows.some(fanOut));
  required(shown.at(-1), "sse run");
  const inputsRun = runs.filter((run) => run.rows.some(inputs)).at(-1);
  return joinBlocks(
    pivotTable(shown, fanOut),
    about(shown),
    inputsRun === undefined
      ? ""
      : joinBlocks(
          "The inputs phase (`POST /v1/tasks/:id/inputs`, 16 in flight), as last measured:",
          pivotTable([inputsRun], inputs),
          shown.includes(inputsRun) ? "" : about([inputsRun]),
        ),
  );
}

/** bench/live.ts's subjects by their short names. */
const LIVE_COLUMNS: Record<string, string> = {
  MemoryStore: "MemoryStore",
  "SqliteStore (file), group commit off": "SQLite, off",
  "SqliteStore (file), group commit on": "SQLite, on",
  "SqliteStore (file), group commit on, writer thread": "SQLite, thread",
  "PostgresStore, group commit off": "PostgreSQL, off",
  "PostgresStore, group commit on": "PostgreSQL, on",
  "PostgresStore, 3 worker processes, group commit on": "PostgreSQL, 3 workers",
  "PostgresStore, 3 worker processes, group commit off": "PostgreSQL, 3 workers, off",
};

function liveSection(all: readonly LoadedResults[]): string {
  const run = required(runsOf(all, "live").at(-1), "live run");
  const subjects = new Map<number, string[]>();
  for (const row of run.rows) {
    const match = /^(.*), N = (\d+)$/.exec(row.subject);
    if (match === null) continue; // a worker's own rows ("…, N = 1000, worker 2")
    const n = Number(match[2]);
    const list = subjects.get(n) ?? [];
    if (!list.includes(match[1] as string)) list.push(match[1] as string);
    subjects.set(n, list);
  }
  const find = (subject: string, metric: RegExp) =>
    run.rows.find((row) => row.subject === subject && metric.test(row.metric));
  const plain = (row: MeasureRow | undefined, unit = "") =>
    row === undefined ? "" : `${figure(row)}${unit}${mark(row)}`;
  const lines: [string, (subject: string) => string][] = [
    ["tasks completed", (s) => plain(find(s, /^tasks completed$/), "%")],
    ["wall ÷ model time (3 s)", (s) => plain(find(s, /^wall ÷ model time/), "×")],
    [
      "event-loop lag p50 / p99 / max (ms)",
      (s) =>
        [/^event-loop lag p50/, /^event-loop lag p99/, /^event-loop lag max/].map((m) => plain(find(s, m))).join(" / "),
    ],
    ["peak RSS (MiB)", (s) => plain(find(s, /^peak RSS/))],
    [
      "commits per second",
      (s) => {
        // MemoryStore has no transactions: its figure is appends.
        const row = find(s, /^commits per second/);
        return row !== undefined && s.startsWith("MemoryStore") ? `(${figure(row)} appends/s)` : plain(row);
      },
    ],
    [
      "steer latency p50 / p99 (ms; steers)",
      (s) => {
        const count = find(s, /^steers applied/)?.median ?? 0;
        const p50 = find(s, /^steer latency p50$/);
        const p99 = find(s, /^steer latency p99$/);
        return p50 === undefined || p99 === undefined ? `(${count})` : `${plain(p50)} / ${plain(p99)} (${count})`;
      },
    ],
    [
      "longest batch, BEGIN … COMMIT (ms)",
      (s) => {
        const row = find(s, /^longest batch/);
        return row === undefined ? "" : `${plain(row)}${s.includes("writer thread") ? " (on its thread)" : ""}`;
      },
    ],
  ];
  const tables = [...subjects.entries()].map(([n, list]) => {
    const header = [`N = ${n.toLocaleString("en-US")}`, ...list.map((subject) => LIVE_COLUMNS[subject] ?? subject)];
    const body = lines
      .map(([title, render]) => [title, ...list.map((subject) => render(`${subject}, N = ${n}`))])
      .filter((cells) => cells.slice(1).some((text) => text !== ""));
    return markdownTable(header, body);
  });
  const goals = run.rows.filter((row) => row.target !== undefined && /, N = \d+$/.test(row.subject));
  const goalLine =
    goals.length === 0
      ? ""
      : `- ✓ / ✗: issue 21's goals where they apply (${[
          ...new Set(goals.map((row) => `${row.metric.replace(/, worst worker$/, "")} ${targetText(row)}`)),
        ].join(", ")}).`;
  return joinBlocks(...tables, [goalLine, about([run])].filter((text) => text !== "").join("\n"));
}

function fixedCostSection(all: readonly LoadedResults[]): string {
  const runs = shownRuns(all, "fixed-cost", 3);
  const latest = runs.at(-1) as MeasuredResults;
  const metrics = ["events", "store calls", "appends", "SQL statements", "SQL statements, first task", "SQL at open"];
  const trend = (store: string, task: string, metric: string) => {
    const values = runs.flatMap((run) => {
      const row = rowOf(run, store, metric, task);
      return row?.median === undefined ? [] : [formatFigure(row.median)];
    });
    const distinct = values.filter((value, i) => i === 0 || value !== values[i - 1]);
    return distinct.length === 0 ? "–" : distinct.join(" → ");
  };
  const pairs = [...new Map(latest.rows.map((row) => [`${row.subject}\u0000${row.workload}`, row])).values()];
  const body = pairs.map((row) => [
    row.subject,
    row.workload ?? "",
    ...metrics.map((metric) => trend(row.subject, row.workload ?? "", metric)),
  ]);
  return joinBlocks(
    markdownTable(["store", "task", ...metrics], body),
    `- A cell with arrows: the count in each run below that recorded it, oldest first (${runs.map((run) => run.commit).join(" → ")}), a repeated count once. "SQL statements": a later task's.\n${about(runs)}`,
  );
}

/** bench/peers/workloads.ts's titles. */
const WORKLOADS: Record<string, string> = {
  "one-turn": "(1) 1-turn task",
  "turns-200": "(2) 200 turns × 1 call",
  "turns-200x3": "(3) 200 turns × 3 calls",
  concurrent: "(4) 1,000 concurrent × 10",
  "durable-200": "(5a) durable, 200 turns",
  "durable-1000": "(5b) durable, 1,000 turns",
  resume: "(5c) resume, 1,000 turns",
};
const SEMA = "Sema";

/** The peers' metrics the README shows of a full run (the results files have CPU time, heap and RSS too). */
const PEER_METRICS = new Set(["wall per turn", "stored per turn", "resume: open → first model call"]);

function peersTable(run: MeasuredResults, metrics: ReadonlySet<string> | undefined = PEER_METRICS): string {
  const frameworks = [SEMA, ...new Set(run.rows.map((row) => row.subject).filter((subject) => subject !== SEMA))];
  const shown = run.rows.filter((row) => metrics === undefined || metrics.has(row.metric));
  const lines = [...new Map(shown.map((row) => [`${row.workload}\u0000${row.metric}`, row])).values()];
  const body = lines.map((line) => [
    WORKLOADS[line.workload ?? ""] ?? line.workload ?? "",
    `${line.metric} (${line.unit})`,
    ...frameworks.map((framework) => {
      const row = rowOf(run, framework, line.metric, line.workload);
      if (row === undefined) return "—";
      return row.ratio === undefined ? cell(row) : `${cell(row)} (${formatFigure(row.ratio)}×)`;
    }),
  ]);
  return markdownTable(["workload", "metric", ...frameworks], body);
}

/** Issue 7's goals, from a run's figures: the verdict and the two figures compared, or undefined. */
function peerGoals(run: MeasuredResults): { goal: string; verdict: string | undefined }[] {
  const wall = (workload: string, subject: string) => rowOf(run, subject, "wall per turn", workload);
  const ratioOf = (row: MeasureRow, base: MeasureRow) =>
    row.ratio ?? (row.median ?? Number.NaN) / (base.median ?? Number.NaN);
  const verdict = (met: boolean, ratio: number, a: number | undefined, b: number | undefined, unit = "") =>
    `${met ? "✓" : "✗"} ${formatFigure(ratio)}× (${formatFigure(a ?? Number.NaN)} vs ${formatFigure(b ?? Number.NaN)}${unit})`;
  const goals: { goal: string; verdict: string | undefined }[] = [];
  for (const workload of ["turns-200", "turns-200x3", "concurrent"]) {
    const sema = wall(workload, SEMA);
    const fastest = run.rows
      .filter((row) => row.workload === workload && row.metric === "wall per turn" && !row.subject.startsWith(SEMA))
      .sort((a, b) => (a.median ?? 0) - (b.median ?? 0))[0];
    const ratio = sema === undefined || fastest === undefined ? undefined : ratioOf(fastest, sema);
    goals.push({
      goal: `${workload}: Sema's per-turn overhead ≥ 3× below the fastest peer's`,
      verdict: ratio === undefined ? undefined : verdict(ratio >= 3, ratio, fastest?.median, sema?.median),
    });
  }
  for (const workload of ["durable-200", "durable-1000"]) {
    const sema = wall(workload, SEMA);
    const peer = wall(workload, "LangGraph ReAct");
    const ratio = sema === undefined || peer === undefined ? undefined : ratioOf(peer, sema);
    goals.push({
      goal: `${workload}: durable Sema ≥ 100× below LangGraph + SQLite per turn`,
      verdict: ratio === undefined ? undefined : verdict(ratio >= 100, ratio, peer?.median, sema?.median),
    });
  }
  const short = wall("durable-200", SEMA)?.median;
  const long = wall("durable-1000", SEMA)?.median;
  goals.push({
    goal: "durable Sema flat (1,000-turn per-turn cost ≤ 1.25× the 200-turn one)",
    verdict:
      short === undefined || long === undefined
        ? undefined
        : `${long <= short * 1.25 ? "✓" : "✗"} ${formatFigure(long / short)}× (${formatFigure(short)} → ${formatFigure(long)})`,
  });
  const resume = "resume: open → first model call";
  const semaResume = rowOf(run, SEMA, resume, "resume");
  const peerResume = rowOf(run, "LangGraph ReAct", resume, "resume");
  const resumeRatio =
    semaResume === undefined || peerResume === undefined ? undefined : ratioOf(peerResume, semaResume);
  goals.push({
    goal: "resume of a 1,000-turn task ≥ 10× faster than LangGraph's",
    verdict:
      resumeRatio === undefined
        ? undefined
        : verdict(resumeRatio >= 10, resumeRatio, peerResume?.median, semaResume?.median, " ms"),
  });
  return goals;
}

/** A full run: four frameworks or more, on six workloads or more. */
const fullPeers = (run: MeasuredResults) =>
  new Set(run.rows.map((row) => row.subject)).size >= 4 && new Set(run.rows.map((row) => row.workload)).size >= 6;

function peersSection(all: readonly LoadedResults[]): string {
  const runs = runsOf(all, "peers");
  const full = required(runs.filter(fullPeers).at(-1), "full peers run");
  const since = runs.slice(runs.indexOf(full));
  const judged = since.filter((run) => peerGoals(run).some((goal) => goal.verdict !== undefined));
  const goals = peerGoals(full).map((goal, i) => [
    goal.goal,
    ...judged.map((run) => peerGoals(run)[i]?.verdict ?? "—"),
  ]);
  const later = since.length > 1 ? since.at(-1) : undefined;
  return joinBlocks(
    peersTable(full),
    about([full]),
    markdownTable(["issue 7's goal (ms per turn unless marked; peer vs Sema)", ...judged.map(runLabel)], goals),
    later === undefined ? "" : joinBlocks("The latest run's own figures:", peersTable(later, undefined)),
    about(since.filter((run) => run !== full)),
  );
}

function otelSection(all: readonly LoadedResults[]): string {
  const runs = shownRuns(all, "otel", 4);
  return joinBlocks(
    "CPU per turn, and its ratio to no tracing (medians of 20 rounds; a range where a commit ran twice):",
    compareTable(runs, (row) => row.metric === "CPU per turn"),
    about(runs),
  );
}

/**
 * Several benchmarks in one table, each row's figure before a change (the benchmark's baseline
 * run, if it has one) and after (its latest run); a line per benchmark on what ran.
 */
function beforeAfterSection(all: readonly LoadedResults[], benches: readonly string[]): string {
  const body: string[][] = [];
  const lines: string[] = [];
  const shown: MeasuredResults[] = [];
  for (const bench of benches) {
    const runs = runsOf(all, bench);
    const after = required(runs.at(-1), `${bench} run`);
    const before = runs.filter((run) => run.baseline === true && run !== after).at(-1);
    for (const row of after.rows) {
      const old = before === undefined ? undefined : rowOf(before, row.subject, row.metric, row.workload);
      body.push([bench, row.subject, `${row.metric} (${row.unit})`, cell(old), cell(row), targetText(row)]);
    }
    if (before !== undefined)
      for (const row of before.rows)
        if (rowOf(after, row.subject, row.metric, row.workload) === undefined)
          body.push([bench, row.subject, `${row.metric} (${row.unit})`, cell(row), "—", targetText(row)]);
    lines.push(`- \`${bench}\`: ${describeRun(after)}${before === undefined ? "" : ` Before: ${describeRun(before)}`}`);
    shown.push(after);
    if (before !== undefined) shown.push(before);
  }
  const table = markdownTable(["benchmark", "subject", "metric", "before", "after", "target"], body);
  return joinBlocks(table, [lines.join("\n"), notesOf(shown)].filter((text) => text !== "").join("\n"));
}

// ---------------------------------------------------------------- injection

const CONDITIONS: Record<string, string> = {
  naive: "naive loop",
  framing: "Sema, framing only",
  policy: "Sema, framing + policy",
};

function percent(r: { count: number; total: number }): string {
  return r.total === 0 ? "–" : `${Math.round((100 * r.count) / r.total)} % (${r.count}/${r.total})`;
}

function perTask(r: { count: number; total: number }): string {
  return r.total === 0 ? "–" : `${(r.count / r.total).toFixed(2)} (${r.count}/${r.total})`;
}

/** The suite's table, as `sema eval injection` prints it. */
export function injectionTable(rows: readonly InjectionRow[]): string {
  return markdownTable(
    [
      "Model",
      "Condition",
      "Environment",
      "Attack success",
      "Utility under attack",
      "Benign utility",
      "Approvals per benign task",
    ],
    rows.map((row) => [
      row.model,
      CONDITIONS[row.condition] ?? row.condition,
      row.environment,
      percent(row.attackSuccess),
      percent(row.utilityUnderAttack),
      percent(row.benignUtility),
      perTask(row.benignApprovals),
    ]),
  );
}

function latestInjection(all: readonly LoadedResults[]): InjectionResults {
  const runs = all.map((loaded) => loaded.results).filter((run): run is InjectionResults => run.bench === "injection");
  return required(runs.at(-1), "injection run");
}

function injectionSection(all: readonly LoadedResults[]): string {
  const run = latestInjection(all);
  const obedient = run.rows.filter((row) => row.model === "obedient");
  const main = obedient.filter((row) => row.environment === "all");
  const limits = obedient.filter((row) => row.environment === "limits");
  const find = (condition: string) =>
    required(
      main.find((row) => row.condition === condition),
      `obedient ${condition} row`,
    );
  const rate = (r: { count: number; total: number }) => (r.total === 0 ? 0 : r.count / r.total);
  const pct = (x: number) => `${Math.round(100 * x)} %`;
  const policy = find("policy");
  const naive = find("naive");
  return joinBlocks(
    injectionTable([...main, ...limits]),
    [
      runLines([run]),
      "- The obedient model, every environment together (`all`), and the `limits` environment (`--suite limits`: attacks the classification lets through, and a benign reply it holds). Each environment's rows, and the task-following model's (which no attack moves), are in the results file.",
      `- Issue 20's goals, obedient model: attack success under the policy ${pct(rate(policy.attackSuccess))} (goal 0 %; naive loop ${pct(rate(naive.attackSuccess))}); benign utility ${pct(rate(policy.benignUtility) / Math.max(rate(naive.benignUtility), Number.EPSILON))} of the naive loop's (goal ≥ 95 %); ${rate(policy.benignApprovals).toFixed(2)} approvals per benign task (goal ≤ 0.1).`,
    ].join("\n"),
  );
}

/** The obedient model's rows of every environment but `limits`, for the security guide. */
function injectionObedient(all: readonly LoadedResults[]): string {
  const run = latestInjection(all);
  return injectionTable(run.rows.filter((row) => row.model === "obedient" && row.environment !== "limits"));
}

// ---------------------------------------------------------------- the docs' headline figures

/** The median (or the range, if the run kept only that) with its unit and mark: "0.018 ms ✓", "2.04× ✗". */
function withUnit(row: MeasureRow | undefined): string {
  if (row === undefined) return "—";
  const unit = row.unit === "×" || row.unit === "ratio" ? "×" : row.unit === "%" ? " %" : ` ${row.unit}`;
  const value =
    row.median === undefined
      ? `${formatFigure(row.min ?? Number.NaN)} – ${formatFigure(row.max ?? Number.NaN)}`
      : formatFigure(row.median);
  return `${value}${unit}${mark(row)}`;
}

/** A figure of the run quoted: `f` with its unit, `n` the number alone. */
interface Figures {
  f(subject: string, metric: string, workload?: string): string;
  n(subject: string, metric: string, workload?: string): string;
}

interface Headline {
  bench: string;
  command: string;
  /** The latest run that has this row is the one quoted. */
  needs: [subject: string, metric: string, workload?: string];
  text(figures: Figures): string;
}

const HEADLINES: Headline[] = [
  {
    bench: "harness",
    command: "npm run bench:harness",
    needs: ["MemoryStore, 1,000 turns", "wall per turn"],
    text: ({ f }) =>
      `Wall per model turn, 1,000-turn task: MemoryStore ${f("MemoryStore, 1,000 turns", "wall per turn")}, SqliteStore ${f("SqliteStore (file), 1,000 turns", "wall per turn")} (10,000 turns: ${f("MemoryStore, 10,000 turns", "wall per turn")}, ${f("SqliteStore (file), 10,000 turns", "wall per turn")}); stored per turn ${f("MemoryStore, 1,000 turns", "stored per turn")}, ${f("SqliteStore (file), 1,000 turns", "stored per turn")}`,
  },
  {
    bench: "otel",
    command: "npm run bench:otel",
    needs: ["tracing on ÷ off", "CPU per turn"],
    text: ({ f }) =>
      `CPU per turn over no tracing: \`traceEmit\` ${f("tracing on ÷ off", "CPU per turn")}, an exporter reading every field ${f("tracing, every field read ÷ off", "CPU per turn")}, metrics ${f("metrics on ÷ off", "CPU per turn")}`,
  },
  {
    bench: "peers",
    command: "npm run bench:peers",
    needs: ["OpenAI Agents run()", "wall per turn", "turns-200"],
    text: ({ f }) =>
      `Wall per turn, 200 turns × 1 tool call: Sema ${f(SEMA, "wall per turn", "turns-200")}, pi ${f("pi agentLoop", "wall per turn", "turns-200")}, AI SDK ${f("AI SDK ToolLoopAgent", "wall per turn", "turns-200")}, LangGraph ${f("LangGraph ReAct", "wall per turn", "turns-200")}, OpenAI Agents ${f("OpenAI Agents run()", "wall per turn", "turns-200")}`,
  },
  {
    bench: "peers",
    command: "npm run bench:peers",
    needs: ["LangGraph ReAct", "stored per turn", "durable-1000"],
    text: ({ f }) =>
      `Durable, 1,000 turns: Sema on SQLite ${f(SEMA, "wall per turn", "durable-1000")} and ${f(SEMA, "stored per turn", "durable-1000")} per turn, LangGraph + \`SqliteSaver\` ${f("LangGraph ReAct", "wall per turn", "durable-1000")} and ${f("LangGraph ReAct", "stored per turn", "durable-1000")}; resume ${f(SEMA, "resume: open → first model call", "resume")} against ${f("LangGraph ReAct", "resume: open → first model call", "resume")}`,
  },
  {
    bench: "store",
    command: "npm run bench:store",
    needs: ["SqliteStore (file)", "single-event appends, 20,000 transactions"],
    text: ({ f }) =>
      `SqliteStore: ${f("SqliteStore (file)", "single-event appends, 20,000 transactions")} one event a transaction, ${f("SqliteStore (file)", "batched appends, 1,000 × 100 events")} in batches of 100; ${f("SqliteStore (file)", "on disk per event")} on disk per event`,
  },
  {
    bench: "fold",
    command: "npm run bench:fold",
    needs: ["fold", "100,000 events from scratch"],
    text: ({ f }) =>
      `100,000 events from scratch ${f("fold", "100,000 events from scratch")}; from a snapshot 100 events back ${f("fold", "from a snapshot 100 events back (state in memory)")}`,
  },
  {
    bench: "fixed-cost",
    command: "npm run bench:fixed-cost",
    needs: ["SqliteStore (file)", "SQL statements", "1 turn, no tool"],
    text: ({ n }) =>
      `A 1-turn task: ${n("SqliteStore (file)", "appends", "1 turn, no tool")} appends; ${n("SqliteStore (file)", "SQL statements", "1 turn, no tool")} SQL statements on SQLite, ${n("PostgresStore", "SQL statements", "1 turn, no tool")} on PostgreSQL`,
  },
  {
    bench: "live",
    command: "npm run bench:live",
    needs: ["SqliteStore (file), group commit on, N = 10000", "wall ÷ model time (3 s)"],
    text: ({ f }) =>
      `10,000 live tasks in one process, SQLite with group commit: ${f("SqliteStore (file), group commit on, N = 10000", "wall ÷ model time (3 s)")} the model's time, event-loop lag p99 ${f("SqliteStore (file), group commit on, N = 10000", "event-loop lag p99")}, RSS ${f("SqliteStore (file), group commit on, N = 10000", "peak RSS")}`,
  },
  {
    bench: "scale-out",
    command: "npm run bench:scale-out",
    needs: ["PostgresStore", "single-event appends (5,000)"],
    text: ({ f }) =>
      `PostgresStore ${f("PostgresStore", "single-event appends (5,000)")} one event a transaction (SQLite ${f("SqliteStore (file)", "single-event appends (5,000)")}); a steer from an API node applied on a worker node, p50 ${f("PostgresStore", "steer POST on A → applied on B, p50")} (SQLite ${f("SqliteStore (file)", "steer POST on A → applied on B, p50")})`,
  },
  {
    bench: "sse",
    command: "npm run bench:sse",
    needs: ["SSE fan-out, one every 10 ms", "append → receipt, p99"],
    text: ({ f }) =>
      `1,000 subscribers, one event every 10 ms: ${f("SSE fan-out, one every 10 ms", "events delivered per second (all subscribers)")} delivered, p99 ${f("SSE fan-out, one every 10 ms", "append → receipt, p99")} (target ≤ 20 ms); burst ${f("SSE fan-out, burst", "events delivered per second (all subscribers)")}`,
  },
  {
    bench: "sse-slow",
    command: "npm run bench:sse-slow",
    needs: ["server RSS", "growth"],
    text: ({ f }) =>
      `60 clients that never read a 100 MB stream: server RSS +${f("server RSS", "growth")}, slowest bystander GET ${f("bystander GET /v1/tasks/{id}", "slowest")}`,
  },
  {
    bench: "task-get",
    command: "npm run bench:task-get",
    needs: ["GET tiny task", "CPU per GET"],
    text: ({ f }) =>
      `CPU per \`GET /v1/tasks/{id}\`: ${f("GET tiny task", "CPU per GET")} for a tiny task, ${f("GET 50 MB-log task", "CPU per GET")} with a 50 MB log`,
  },
  {
    bench: "task-get-serve",
    command: "npm run task-get-serve -w @sema-agent/bench",
    needs: ["sema serve, 50 MB-log task", "server CPU per GET"],
    text: ({ f }) =>
      `A real \`sema serve\`: ${f("sema serve, tiny task", "server CPU per GET")} server CPU per GET of a tiny task, ${f("sema serve, 50 MB-log task", "server CPU per GET")} with a 50 MB log`,
  },
  {
    bench: "fair-share-serve",
    command: "npm run fair-share-serve -w @sema-agent/bench",
    needs: ["B's task, 60 of A's queued ahead of it", "creation → completed"],
    text: ({ f }) =>
      `One principal's task behind another's 60: created → completed in ${f("B's task, 60 of A's queued ahead of it", "creation → completed")}`,
  },
  {
    bench: "soak",
    command: "npm run bench:soak",
    needs: ["sema serve (SQLite)", "RSS growth under the load"],
    text: ({ f }) =>
      `Everything at once: RSS +${f("sema serve (SQLite)", "RSS growth under the load")}, bystander GET p99 ${f("sema serve (SQLite)", "bystander GET p99")}`,
  },
  {
    bench: "mcp",
    command: "npm run bench:mcp",
    needs: ["stdio (sema mcp)", "run_default round trip p50"],
    text: ({ f }) =>
      `A whole task per \`run_default\` call, p50: stdio ${f("stdio (sema mcp)", "run_default round trip p50")}, Streamable HTTP ${f("Streamable HTTP (/mcp of serve)", "run_default round trip p50")}`,
  },
  {
    bench: "a2a",
    command: "npm run bench:a2a",
    needs: ["A2A ÷ /v1", "completion p50 ratio"],
    text: ({ f }) =>
      `A2A \`SendStreamingMessage\` completes in ${f("A2A ÷ /v1", "completion p50 ratio")} the time of \`/v1\`'s create-then-stream; 100 concurrent streams ${f("100 concurrent A2A streams", "tasks/s")}`,
  },
];

/** The headline figures of every benchmark, for docs/guide/benchmarks.md. */
function headlines(all: readonly LoadedResults[]): string {
  const body = HEADLINES.map((headline) => {
    const [subject, metric, workload] = headline.needs;
    const run = required(
      runsOf(all, headline.bench)
        .filter((each) => rowOf(each, subject, metric, workload) !== undefined)
        .at(-1),
      `${headline.bench} run with ${subject}, ${metric}`,
    );
    const text = headline.text({
      f: (s, m, w) => withUnit(rowOf(run, s, m, w)),
      n: (s, m, w) => {
        const row = rowOf(run, s, m, w);
        return row?.median === undefined ? "—" : formatFigure(row.median);
      },
    });
    return [`\`${headline.command}\``, text, `${run.date.slice(0, 10)}, ${run.commit}`];
  });
  const injection = latestInjection(all);
  const policy = injection.rows.find(
    (row) => row.model === "obedient" && row.condition === "policy" && row.environment === "all",
  );
  if (policy !== undefined)
    body.push([
      "`npm run bench:injection`",
      `Scripted obedient model, framing + provenance policy: attack success ${percent(policy.attackSuccess)}, benign utility ${percent(policy.benignUtility)}`,
      `${injection.date.slice(0, 10)}, ${injection.commit}`,
    ]);
  return markdownTable(["Benchmark", "Headline (median; ✓ / ✗ against the benchmark's target)", "Run"], body);
}

// ---------------------------------------------------------------- the sections

/** A generated section: the file (from the repository's root), its name, and what renders it. */
export interface Section {
  file: string;
  name: string;
  render(all: readonly LoadedResults[]): string;
}

const README = "bench/README.md";

export const SECTIONS: readonly Section[] = [
  {
    file: README,
    name: "store",
    render: (all) => joinBlocks(pivotSection(all, "store", 2), pivotSection(all, "fold")),
  },
  { file: README, name: "harness", render: harnessSection },
  { file: README, name: "peers", render: peersSection },
  { file: README, name: "otel", render: otelSection },
  { file: README, name: "scale-out", render: (all) => pivotSection(all, "scale-out", 2) },
  { file: README, name: "live", render: liveSection },
  { file: README, name: "fixed-cost", render: fixedCostSection },
  { file: README, name: "sse", render: sseSection },
  {
    file: README,
    name: "serving-under-load",
    render: (all) => beforeAfterSection(all, ["sse-slow", "soak", "fair-share-serve", "task-get", "task-get-serve"]),
  },
  {
    file: README,
    name: "protocols",
    render: (all) => joinBlocks(pivotSection(all, "mcp"), pivotSection(all, "a2a")),
  },
  { file: README, name: "injection", render: injectionSection },
  { file: "docs/guide/benchmarks.md", name: "headlines", render: headlines },
  { file: "docs/guide/security.md", name: "injection-obedient", render: injectionObedient },
];

/** A file with generated sections: its text now, and with every section rendered from `all`. */
export interface GeneratedFile {
  file: string;
  current: string;
  generated: string;
}

/** Render every section of every file from the results files (read from `all`, default bench/results/). */
export function generateFiles(repoDir: string, all: readonly LoadedResults[] = loadResults()): GeneratedFile[] {
  const files = [...new Set(SECTIONS.map((section) => section.file))];
  return files.map((file) => {
    const current = readFileSync(join(repoDir, file), "utf8");
    let generated = current;
    for (const section of SECTIONS.filter((each) => each.file === file))
      generated = replaceSection(generated, `results:${section.name}`, section.render(all));
    return { file, current, generated };
  });
}
