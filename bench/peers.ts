/**
 * Sema side by side with the agent loops people would pick instead (issue 7): the same workloads,
 * an instant scripted model and an instant tool everywhere, each (framework, workload, round) in
 * its own Node process, the frameworks' order alternating between rounds. Prints medians, min – max
 * and the ratio to Sema; writes bench/peers-chart.svg and the raw rows to bench/results/raw/.
 *
 *   npm run bench:peers                                              # everything, 5 rounds
 *   npm run peers -w @sema-agent/bench -- --rounds 1 --only sema,pi --workload turns-200
 *   npm run bench:peers -- --save                                    # and write bench/results/peers/…json
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { describeMachine, formatMachine, memoryAfterGc, reportToParent, runInChild } from "./lib/index.ts";
import { saveRequested, saveResults, toMeasureRow } from "./lib/results.ts";
import { type Panel, renderChart } from "./peers/chart.ts";
import {
  BASELINE,
  formatComparison,
  formatVerdicts,
  goalVerdicts,
  medianOf,
  mergeRounds,
  type PeerRow,
} from "./peers/report.ts";
import {
  type Adapter,
  cpuMsSince,
  type Figure,
  measureTasks,
  peakRssMiB,
  type TaskShape,
  WORKLOADS,
} from "./peers/workloads.ts";

/** The frameworks: adapter module, and whether its child resolves workspace sources (Sema only). */
const FRAMEWORKS: Record<string, { module: string; sourceCondition: boolean; durable: boolean }> = {
  sema: { module: "./peers/sema.ts", sourceCondition: true, durable: true },
  "sema-agent": { module: "./peers/sema-agent.ts", sourceCondition: true, durable: true },
  "sema-traced": { module: "./peers/sema-traced.ts", sourceCondition: true, durable: true },
  pi: { module: "./peers/frameworks/pi.ts", sourceCondition: false, durable: false },
  "ai-sdk": { module: "./peers/frameworks/ai-sdk.ts", sourceCondition: false, durable: false },
  langgraph: { module: "./peers/frameworks/langgraph.ts", sourceCondition: false, durable: true },
  "openai-agents": { module: "./peers/frameworks/openai-agents.ts", sourceCondition: false, durable: false },
};

const SHAPES: Record<string, { shape: TaskShape; warmUp: TaskShape; tasks: number; parallel: boolean }> = {
  "one-turn": {
    shape: { turns: 1, toolCallsPerTurn: 0 },
    warmUp: { turns: 1, toolCallsPerTurn: 0 },
    tasks: 500,
    parallel: false,
  },
  "turns-200": {
    shape: { turns: 200, toolCallsPerTurn: 1 },
    warmUp: { turns: 200, toolCallsPerTurn: 1 },
    tasks: 3,
    parallel: false,
  },
  "turns-200x3": {
    shape: { turns: 200, toolCallsPerTurn: 3 },
    warmUp: { turns: 200, toolCallsPerTurn: 3 },
    tasks: 3,
    parallel: false,
  },
  concurrent: {
    shape: { turns: 10, toolCallsPerTurn: 1 },
    warmUp: { turns: 10, toolCallsPerTurn: 1 },
    tasks: 1_000,
    parallel: true,
  },
};

const DURABLE_TURNS: Record<string, number> = { "durable-200": 200, "durable-1000": 1_000 };

function storedBytes(file: string): number {
  let bytes = 0;
  for (const path of [file, `${file}-wal`]) {
    try {
      bytes += statSync(path).size;
    } catch {
      // No WAL left after close.
    }
  }
  return bytes;
}

/**
 * In a child: one (framework, workload) cell; returns its figures. `warmTurns`: keep warming up
 * with tasks of the same shape until that many turns have run (a long-lived host's steady state).
 */
async function runCell(adapter: Adapter, workload: string, dir: string, warmTurns: number): Promise<Figure[]> {
  const plan = SHAPES[workload];
  if (plan !== undefined) {
    const runner = await adapter.createRunner();
    // Warm-up (JIT, caches), the same shape, not counted.
    const batch = plan.parallel ? 20 : plan.tasks > 10 ? 50 : 1;
    let warmed = 0;
    do {
      if (plan.parallel) await Promise.all(Array.from({ length: batch }, () => runner.runTask(plan.warmUp)));
      else for (let i = 0; i < batch; i++) await runner.runTask(plan.warmUp);
      warmed += batch * plan.warmUp.turns;
    } while (warmed < warmTurns);
    return measureTasks(runner, plan.shape, plan.tasks, plan.parallel);
  }
  const durable = adapter.durable;
  if (durable === undefined) throw new Error(`${adapter.name} has no durable variant`);
  const turns = DURABLE_TURNS[workload];
  if (turns !== undefined) {
    const shape = { turns, toolCallsPerTurn: 1 };
    const warm = await durable.open(join(dir, "warm-up.db"));
    await warm.runTask({ turns: 200, toolCallsPerTurn: 1 });
    await warm.close();
    const file = join(dir, "bench.db");
    const store = await durable.open(file);
    const cpu = process.cpuUsage();
    const start = performance.now();
    const taskId = await store.runTask(shape);
    const wall = performance.now() - start;
    const cpuMs = cpuMsSince(cpu);
    const { heapMiB } = memoryAfterGc();
    await store.close();
    writeFileSync(join(dir, "task-id"), taskId);
    return [
      { metric: "wall per turn", unit: "ms", value: wall / turns },
      { metric: "CPU per turn", unit: "ms", value: cpuMs / turns },
      { metric: "stored per turn", unit: "bytes", value: storedBytes(file) / turns },
      { metric: "heap after the task", unit: "MiB", value: heapMiB },
      { metric: "peak RSS", unit: "MiB", value: peakRssMiB() },
    ];
  }
  if (workload === "resume") {
    const { opened, firstCall } = await durable.resume(
      join(dir, "bench.db"),
      readFileSync(join(dir, "task-id"), "utf8"),
    );
    return [
      { metric: "resume: open → first model call", unit: "ms", value: firstCall - opened },
      { metric: "resume: process start → first model call", unit: "ms", value: firstCall },
      { metric: "peak RSS", unit: "MiB", value: peakRssMiB() },
    ];
  }
  throw new Error(`unknown workload ${workload}`);
}

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    only: { type: "string" },
    // Warm-up turns before the in-memory workloads are measured (default: one warm-up task).
    "warm-turns": { type: "string", default: "0" },
    workload: { type: "string" },
    // Child mode.
    cell: { type: "string" },
    run: { type: "string" },
    dir: { type: "string" },
    save: { type: "boolean", default: false },
  },
});

if (values.cell !== undefined) {
  const framework = FRAMEWORKS[values.cell];
  if (framework === undefined || values.run === undefined || values.dir === undefined)
    throw new Error("bad child call");
  const { adapter } = (await import(framework.module)) as { adapter: Adapter };
  const figures = await runCell(adapter, values.run, values.dir, Number(values["warm-turns"]));
  const workload = values.run;
  reportToParent(
    figures.map(
      (f): PeerRow => ({ workload, subject: adapter.name, metric: f.metric, unit: f.unit, samples: [f.value] }),
    ),
  );
  process.exit(0); // Some peers leave handles open (timers, pools); the figures are in.
}

const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
const keys = values.only === undefined ? Object.keys(FRAMEWORKS) : values.only.split(",");
for (const key of keys)
  if (FRAMEWORKS[key] === undefined)
    throw new Error(`unknown framework ${key}; known: ${Object.keys(FRAMEWORKS).join(", ")}`);
const workloads =
  values.workload === undefined ? WORKLOADS : WORKLOADS.filter((w) => values.workload?.split(",").includes(w.key));
if (workloads.length === 0)
  throw new Error(`unknown workload ${values.workload}; known: ${WORKLOADS.map((w) => w.key).join(", ")}`);

const warmTurns = Number(values["warm-turns"]);
if (!Number.isInteger(warmTurns) || warmTurns < 0)
  throw new Error(`--warm-turns must be a non-negative integer, got ${values["warm-turns"]}`);
const script = fileURLToPath(import.meta.url);
const child = (key: string, run: string, dir: string) =>
  runInChild<PeerRow>(script, ["--cell", key, "--run", run, "--dir", dir, "--warm-turns", String(warmTurns)], {
    sourceCondition: FRAMEWORKS[key]?.sourceCondition ?? false,
  });

const machine = describeMachine();
console.log(formatMachine(machine));
console.log(
  `frameworks: ${keys.join(", ")}; rounds: ${rounds}; workloads: ${workloads.map((w) => w.key).join(", ")}\n`,
);
const rows: PeerRow[] = [];
const wantsResume = workloads.some((w) => w.key === "resume");
const wantsLong = workloads.some((w) => w.key === "durable-1000");
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? keys : [...keys].reverse();
  for (const workload of workloads) {
    if (workload.key === "resume" && wantsLong) continue; // Runs right after durable-1000, on its file.
    for (const key of order) {
      if (workload.durable && FRAMEWORKS[key]?.durable !== true) continue;
      const dir = mkdtempSync(join(tmpdir(), "sema-bench-peers-"));
      try {
        const t = performance.now();
        const seedKey = workload.key === "resume" ? "durable-1000" : workload.key;
        const cellRows = await child(key, seedKey, dir);
        if (workload.key !== "resume") rows.push(...cellRows);
        if (wantsResume && seedKey === "durable-1000") rows.push(...(await child(key, "resume", dir)));
        process.stderr.write(
          `round ${round}/${rounds} ${workload.key} ${key}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
}

const merged = mergeRounds(rows);
const titles = new Map(WORKLOADS.map((w) => [w.key, w.title]));
const ordered = WORKLOADS.flatMap((w) => merged.filter((r) => r.workload === w.key));
console.log(`\n${formatComparison(ordered, titles)}\n`);
console.log(`${formatVerdicts(goalVerdicts(ordered))}\n`);

const panel = (title: string, unit: string, log: boolean, metric: string, keysOf: readonly string[]): Panel => ({
  title,
  unit,
  log,
  groups: keysOf
    .map((k) => ({
      label: titles.get(k) ?? k,
      bars: ordered
        .filter((r) => r.workload === k && r.metric === metric)
        .map((r) => {
          const sorted = [...r.samples].sort((a, b) => a - b);
          return {
            name: r.subject,
            median: sorted[(sorted.length - 1) >> 1] ?? 0,
            min: sorted[0] ?? 0,
            max: sorted.at(-1) ?? 0,
          };
        }),
    }))
    .filter((g) => g.bars.length > 0),
});
const here = dirname(script);
const svg = renderChart(`Sema vs peers — ${machine.date.slice(0, 10)}, Node ${machine.node}, ${rounds} rounds`, [
  panel("Wall time per turn", "ms", true, "wall per turn", [
    "one-turn",
    "turns-200",
    "turns-200x3",
    "concurrent",
    "durable-200",
    "durable-1000",
  ]),
  panel("Resume a 1,000-turn task", "ms to first model call", true, "resume: open → first model call", ["resume"]),
  panel("Peak RSS", "MiB", false, "peak RSS", ["turns-200x3", "concurrent", "durable-1000"]),
]);
writeFileSync(join(here, "peers-chart.svg"), svg);
mkdirSync(join(here, "results", "raw"), { recursive: true });
const out = join(here, "results", "raw", `peers-${machine.date.replace(/[:.]/g, "-")}.json`);
writeFileSync(out, `${JSON.stringify({ machine, rounds, frameworks: keys, rows: ordered }, null, 2)}\n`);
console.log(`chart: bench/peers-chart.svg; raw rows: ${out}`);
if (saveRequested()) {
  // Each row with its ratio to Sema's median (of the same workload and metric), from the unrounded medians.
  const rows = ordered.map((row) => {
    const saved = toMeasureRow(row);
    const base = medianOf(ordered, row.workload, BASELINE, row.metric);
    const ratio = row.subject === BASELINE || base === undefined || base <= 0 ? undefined : (saved.median ?? 0) / base;
    return ratio === undefined || !(ratio > 0) ? saved : { ...saved, ratio };
  });
  const file = saveResults({ bench: "peers", args: process.argv.slice(2), machine, rows });
  console.log(`results: ${file} (npm run bench:tables renders them into bench/README.md)`);
}
