/** Each benchmark's section of bench/README.md, from its results files, and the injection suite's tables. */
import type { LoadedResults } from "./results.ts";
import {
  about,
  cell,
  compareTable,
  describeRun,
  figure,
  formatFigure,
  hasMetric,
  joinBlocks,
  lastRuns,
  mark,
  markdownTable,
  notesOf,
  pivotTable,
  required,
  rowOf,
  runLabel,
  runLines,
  runsOf,
  shownRuns,
  targetText,
} from "./results-format.ts";
import type { InjectionResults, InjectionRow, MeasuredResults, MeasureRow } from "./results-schema.ts";

// ---------------------------------------------------------------- per benchmark

export function harnessSection(all: readonly LoadedResults[]): string {
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

export function sseSection(all: readonly LoadedResults[]): string {
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

/** The people's metrics of bench/live.ts (issue 36): sent → the model request that carries it. */
const PEOPLE = ["steer", "interrupting input", "approval decision"] as const;

/**
 * Issue 36's table: each person's latency (p50 / p99, and how many) in the latest runs that timed
 * them, the one before a change (`baseline`) beside the one after, per store and N.
 */
function peopleSection(runs: readonly MeasuredResults[]): string {
  const timed = runs.filter((run) => run.rows.some((row) => row.metric.endsWith("→ model request p99")));
  const shown = timed.slice(-2);
  if (shown.length === 0) return "";
  const subjects = [
    ...new Set(
      shown.flatMap((run) =>
        run.rows.filter((row) => row.metric.endsWith("→ model request p99")).map((row) => row.subject),
      ),
    ),
  ];
  const header = [
    "sent → model request, p50 / p99 (ms; inputs)",
    ...shown.map(
      (run) => `${run.date.slice(0, 16).replace("T", " ")}, ${run.commit}${run.baseline ? " (before)" : ""}`,
    ),
  ];
  const body = subjects.flatMap((subject) =>
    PEOPLE.map((kind) => [
      `${LIVE_COLUMNS[subject.replace(/, N = \d+$/, "")] ?? subject}, N = ${Number(/N = (\d+)$/.exec(subject)?.[1]).toLocaleString("en-US")}: ${kind}`,
      ...shown.map((run) => {
        const row = (metric: string) =>
          run.rows.find((r) => r.subject === subject && r.metric === `${kind} → model request${metric}`);
        const p50 = row(" p50");
        const p99 = row(" p99");
        const count = row(", count")?.median ?? 0;
        return p50 === undefined || p99 === undefined
          ? `(${count})`
          : `${figure(p50)} / ${figure(p99)}${mark(p99)} (${count})`;
      }),
    ]),
  );
  return joinBlocks(
    "People first (issue 36): each input timed from the call that sends it to the model request that carries it.",
    markdownTable(header, body),
    about(shown),
  );
}

export function liveSection(all: readonly LoadedResults[]): string {
  const runs = runsOf(all, "live");
  // The main tables: the latest run of every store (one with MemoryStore); issue 36's runs below them.
  const run = required(
    runs.filter((r) => r.rows.some((row) => row.subject.startsWith("MemoryStore"))).at(-1),
    "live run",
  );
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
    ["creating the tasks (ms)", (s) => plain(find(s, /^create [\d,]+ tasks/))],
    ["(creation + wall) ÷ model time", (s) => plain(find(s, /^\(creation \+ wall\)/), "×")],
    [
      "CPU per task created / run (µs)",
      (s) => {
        const created = find(s, /^CPU per task created$/);
        const run = find(s, /^CPU per task run/);
        return created === undefined || run === undefined ? "" : `${plain(created)} / ${plain(run)}`;
      },
    ],
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
  return joinBlocks(...tables, [goalLine, about([run])].filter((text) => text !== "").join("\n"), peopleSection(runs));
}

export function fixedCostSection(all: readonly LoadedResults[]): string {
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
export const SEMA = "Sema";

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

export function peersSection(all: readonly LoadedResults[]): string {
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

export function otelSection(all: readonly LoadedResults[]): string {
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
export function beforeAfterSection(all: readonly LoadedResults[], benches: readonly string[]): string {
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

export function percent(r: { count: number; total: number }): string {
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

export function latestInjection(all: readonly LoadedResults[]): InjectionResults {
  const runs = all.map((loaded) => loaded.results).filter((run): run is InjectionResults => run.bench === "injection");
  return required(runs.at(-1), "injection run");
}

export function injectionSection(all: readonly LoadedResults[]): string {
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

/** The obedient model's rows of every environment, `limits` among them, for the security guide. */
export function injectionObedient(all: readonly LoadedResults[]): string {
  const run = latestInjection(all);
  return injectionTable(run.rows.filter((row) => row.model === "obedient"));
}
