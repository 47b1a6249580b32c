/**
 * Results files (bench/results/<bench>/*.json, shaped by results-schema.ts): read them all, and
 * write a run's own when it is asked to (`--save`, or SEMA_BENCH_SAVE=1).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Machine as MachineReading } from "./machine.ts";
import {
  type BenchName,
  type InjectionRow,
  type Machine,
  type MeasureRow,
  ResultsFile,
  SCHEMA_VERSION,
} from "./results-schema.ts";
import { summarize } from "./stats.ts";
import type { ResultRow } from "./table.ts";

/** bench/results/ */
export const RESULTS_DIR = fileURLToPath(new URL("../results/", import.meta.url));
const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));

/** A results file as read: its path (relative to the repository) and its content. */
export interface LoadedResults {
  path: string;
  results: ResultsFile;
}

/** Oldest first: by date (a day alone sorts at the start of that day), a baseline before the other runs of its date. */
function sortKey(loaded: LoadedResults): string {
  return `${loaded.results.date}\u0000${loaded.results.baseline === true ? 0 : 1}\u0000${loaded.path}`;
}

/**
 * Every results file under `dir` (one folder per benchmark; `raw/` and loose files are not
 * results), validated, oldest first. Throws on the first file that does not validate, naming it.
 */
export function loadResults(dir: string = RESULTS_DIR): LoadedResults[] {
  const loaded: LoadedResults[] = [];
  if (!existsSync(dir)) return loaded;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "raw") continue;
    for (const file of readdirSync(join(dir, entry.name))) {
      if (!file.endsWith(".json")) continue;
      const path = join(dir, entry.name, file);
      const name = relative(REPO_DIR, path);
      const parsed = ResultsFile.safeParse(JSON.parse(readFileSync(path, "utf8")));
      if (!parsed.success) throw new Error(`${name}: ${parsed.error.message}`);
      if (parsed.data.bench !== entry.name)
        throw new Error(`${name}: bench "${parsed.data.bench}" in the wrong folder`);
      loaded.push({ path: name, results: parsed.data });
    }
  }
  return loaded.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}

/** Whether this run should write its results file: `--save` among its arguments, or SEMA_BENCH_SAVE=1. */
export function saveRequested(argv: readonly string[] = process.argv, env = process.env): boolean {
  return argv.includes("--save") || env.SEMA_BENCH_SAVE === "1";
}

/** The arguments without `--save` (scripts that parse their own take it out first). */
export function withoutSave(argv: readonly string[]): string[] {
  return argv.filter((arg) => arg !== "--save");
}

/** The checked-out commit, short, with `-dirty` if tracked files have uncommitted changes. */
export function currentCommit(): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: REPO_DIR, encoding: "utf8" }).trim();
  const commit = git("rev-parse", "--short", "HEAD");
  return git("status", "--porcelain", "--untracked-files=no") === "" ? commit : `${commit}-dirty`;
}

/** A printed results row (its samples) as a results file's row: median, min, max, rounds and the samples. */
export function toMeasureRow(row: ResultRow & { workload?: string }): MeasureRow {
  const s = summarize(row.samples);
  return {
    subject: row.subject,
    metric: row.metric,
    unit: row.unit,
    ...(row.workload === undefined ? {} : { workload: row.workload }),
    median: s.median,
    min: s.min,
    max: s.max,
    rounds: s.n,
    samples: [...row.samples],
    ...(row.target === undefined ? {} : { target: row.target }),
  };
}

/** What a run passes to {@link saveResults}. */
export interface RunToSave {
  bench: BenchName;
  /** The arguments the script was given (`--save` is dropped from the command recorded). */
  args: readonly string[];
  machine: MachineReading;
  rows: MeasureRow[] | InjectionRow[];
  note?: string;
}

/** How the run is repeated: the root script where the benchmark has one, else the workspace's. */
function commandOf(bench: BenchName, args: readonly string[]): string {
  const rest = withoutSave(args);
  const root = bench === "task-get-serve" || bench === "fair-share-serve" ? undefined : `npm run bench:${bench}`;
  const base = root ?? `npm run ${bench} -w @sema-agent/bench`;
  return rest.length === 0 ? base : `${base} -- ${rest.join(" ")}`;
}

/**
 * Write the run's results file, bench/results/<bench>/<YYYY-MM-DD>T<HHMM>Z-<commit>.json (a
 * suffix if that name is taken), validated first; returns its path. Numbers that are not finite
 * (a percentile of nothing) cannot be stored: those rows are left out, and said so on stderr.
 */
export function saveResults(run: RunToSave, dir: string = RESULTS_DIR): string {
  const { machine } = run;
  const kept = (run.rows as (MeasureRow | InjectionRow)[]).filter((row) => {
    if (!("median" in row)) return true;
    const finite = [row.median, row.min, row.max, ...(row.samples ?? [])].every(
      (n) => n === undefined || Number.isFinite(n),
    );
    if (!finite) process.stderr.write(`not saved (no finite figure): ${row.subject}, ${row.metric}\n`);
    return finite;
  });
  const recordedMachine: Machine = {
    cpus: machine.cpus,
    cpuModel: machine.cpuModel,
    memoryGiB: machine.memoryGiB,
    node: machine.node,
    os: machine.os,
    load1: Math.round(machine.load1 * 100) / 100,
  };
  const results = ResultsFile.parse({
    schemaVersion: SCHEMA_VERSION,
    bench: run.bench,
    commit: currentCommit(),
    date: machine.date,
    machine: recordedMachine,
    command: commandOf(run.bench, run.args),
    ...(run.note === undefined ? {} : { note: run.note }),
    rows: kept,
  });
  const folder = join(dir, run.bench);
  mkdirSync(folder, { recursive: true });
  const stem = `${machine.date.slice(0, 10)}T${machine.date.slice(11, 13)}${machine.date.slice(14, 16)}Z-${results.commit}`;
  let file = join(folder, `${stem}.json`);
  for (let n = 2; existsSync(file); n++) file = join(folder, `${stem}-${n}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  formatJson(file);
  return file;
}

/** Lay the file out as the repository's formatter does (short arrays on one line), if it is installed. */
function formatJson(file: string): void {
  const biome = join(REPO_DIR, "node_modules", ".bin", "biome");
  if (!existsSync(biome) || relative(REPO_DIR, file).startsWith("..")) return;
  try {
    execFileSync(biome, ["format", "--write", file], { cwd: REPO_DIR, stdio: "ignore" });
  } catch {
    process.stderr.write(`could not format ${file}: run npx biome format --write on it\n`);
  }
}

/**
 * If this run was asked to save (`--save`, SEMA_BENCH_SAVE=1): write its rows as a results file
 * and say where. `machine` is what the run printed at its start.
 */
export function saveIfAsked(
  bench: BenchName,
  machine: MachineReading,
  rows: readonly (ResultRow & { workload?: string })[],
  note?: string,
): void {
  if (!saveRequested()) return;
  const file = saveResults({
    bench,
    args: process.argv.slice(2),
    machine,
    rows: rows.map(toMeasureRow),
    ...(note === undefined ? {} : { note }),
  });
  console.log(`\nresults: ${relative(REPO_DIR, file)} (\`npm run bench:tables\` renders them into bench/README.md)`);
}
