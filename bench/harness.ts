/**
 * The harness benchmark: Sema's own cost per model turn, with an instant scripted model and one
 * instant tool call per turn, so only the framework is measured. For MemoryStore and SqliteStore on
 * a real file, at 200, 1,000 and 10,000 turns: wall and CPU time per turn, peak RSS, heap after
 * the run, and bytes stored per turn. Each (store, length) runs in its own process. Every round is
 * run twice, without and with `traceEmit` of `@sema-agent/otel` exporting into the SDK's
 * `InMemorySpanExporter` (the order alternating), and tracing's cost is their ratio per round.
 *
 *   npm run bench:harness                                    # everything, 5 rounds
 *   npm run harness -w @sema-agent/bench -- --store memory --turns 1000 --rounds 5
 *   npm run bench:harness -- --save                          # and write bench/results/harness/…json
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { MemoryStore, runLeg, type Store, startTask, type ToolContext } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { traceEmit } from "@sema-agent/otel";
import { SqliteStore } from "@sema-agent/sqlite";
import {
  describeMachine,
  formatMachine,
  formatTable,
  memoryAfterGc,
  type ResultRow,
  reportToParent,
  runInChild,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const LENGTHS = [200, 1_000, 10_000];
const WARM_UP_TURNS = 30_000;
const ROUND_TURNS = 2_000;

interface Subject {
  name: string;
  open(dir: string): Store;
  file?: string;
  /** ms per turn */
  target: number;
}

const SUBJECTS: Record<string, Subject> = {
  memory: { name: "MemoryStore", open: () => new MemoryStore(), target: 0.027 },
  sqlite: {
    name: "SqliteStore (file)",
    open: (dir) => new SqliteStore({ path: join(dir, "bench.db") }),
    file: "bench.db",
    target: 0.15,
  },
  // The writer on a thread of its own (issue 21): a lone task pays a thread hop per append.
  "sqlite-thread": {
    name: "SqliteStore (file), writer thread",
    open: (dir) => new SqliteStore({ path: join(dir, "bench.db"), writer: "thread" }),
    file: "bench.db",
    target: 0.15,
  },
};

interface Round {
  wallMsPerTurn: number;
  cpuMsPerTurn: number;
  /** Time per turn over the task's last tenth ÷ over its first tenth: 1 is flat. */
  growth: number;
}

interface Footprint {
  bytesPerTurn: number;
  heapMiB: number;
}

/**
 * One task on a fresh store, `traced` or not; with `footprint`, also what it stored and the heap
 * it leaves.
 */
async function runRound(subject: Subject, turns: number, traced: boolean): Promise<Round>;
async function runRound(subject: Subject, turns: number, traced: boolean, footprint: true): Promise<Round & Footprint>;
async function runRound(
  subject: Subject,
  turns: number,
  traced: boolean,
  footprint = false,
): Promise<Round & Partial<Footprint>> {
  const dir = mkdtempSync(join(tmpdir(), "sema-bench-harness-"));
  try {
    const store = subject.open(dir);
    const taskId = await startTask(store, { objective: "Look everything up" });
    const model = new ScriptedModel(lookupTurns(turns), { recordRequests: false });
    const exporter = new InMemorySpanExporter();
    const tracer = traced ? traceEmit({ exporter, store, env: {} }) : undefined;
    const cpu = process.cpuUsage();
    const start = performance.now();
    // The time of every tool call (one per turn): what the first and the last tenth of the task cost.
    const calls = new Float64Array(turns);
    let call = 0;
    const timed = {
      ...lookupTool,
      execute: (input: { key: string }, ctx: ToolContext) => {
        calls[call++] = performance.now();
        return lookupTool.execute(input, ctx);
      },
    };
    const agent = { model, tools: [timed] };
    const outcome = await runLeg(tracer === undefined ? { store, agent } : { store, agent, emit: tracer.emit }, taskId);
    // flush() exports what is left at once, inside the timing; what it then waits for is the
    // in-memory exporter's answer, on a timer (idle time, no work).
    const flushed = tracer?.flush();
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    await flushed;
    if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
    if (traced && exporter.getFinishedSpans().length < turns) throw new Error("the tracer exported too few spans");
    const tenth = Math.floor((turns - 1) / 10);
    const lastTenth = ((calls[turns - 2] as number) - (calls[turns - 2 - tenth] as number)) / tenth;
    const firstTenth = ((calls[tenth] as number) - (calls[0] as number)) / tenth;
    const round = {
      wallMsPerTurn: wall / turns,
      cpuMsPerTurn: (used.user + used.system) / 1000 / turns,
      growth: lastTenth / firstTenth,
    };
    if (!footprint) {
      await store.close();
      return round;
    }
    let bytes = 0;
    if (subject.file === undefined) {
      for (const event of await store.read(taskId)) bytes += JSON.stringify(event).length;
    }
    const { heapMiB } = memoryAfterGc();
    await store.close();
    if (subject.file !== undefined) bytes = statSync(join(dir, subject.file)).size;
    return { ...round, bytesPerTurn: bytes / turns, heapMiB };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One timed round: tasks of `turns` turns one after another, each on a fresh store, until
 * `ROUND_TURNS` turns have run, so that a short task's round is not one 3 ms sample a single
 * collection can double. Times are per turn over them all; growth is their mean.
 */
async function measuredRound(subject: Subject, turns: number, traced: boolean): Promise<Round> {
  const tasks = Math.max(1, Math.ceil(ROUND_TURNS / turns));
  let wall = 0;
  let cpu = 0;
  let growth = 0;
  for (let task = 0; task < tasks; task++) {
    const round = await runRound(subject, turns, traced);
    wall += round.wallMsPerTurn;
    cpu += round.cpuMsPerTurn;
    growth += round.growth;
  }
  return { wallMsPerTurn: wall / tasks, cpuMsPerTurn: cpu / tasks, growth: growth / tasks };
}

async function runSubject(key: string, turns: number, rounds: number): Promise<ResultRow[]> {
  const subject = SUBJECTS[key];
  if (subject === undefined) throw new Error(`unknown store ${key}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  // The first task of a process runs while V8 is still compiling the harness: reported on its own
  // row. Then warm-up tasks of the same length, at least 3 and 30,000 turns in all (measured: the
  // cost per turn keeps falling for 15,000–40,000 turns, as V8 finishes optimizing and sizes its
  // heap), so the rounds measure the steady state of a long-lived host.
  // Traced tasks warm up beside the others, so the rounds of both measure a warm process.
  const cold = await runRound(subject, turns, false);
  for (let task = 1, warmed = turns; task <= 3 || warmed < WARM_UP_TURNS; task++, warmed += turns) {
    await runRound(subject, turns, false);
    await runRound(subject, turns, true);
  }
  const results: Round[] = [];
  const tracedResults: Round[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Alternating which goes first: neither always runs right after the other's garbage.
    for (const traced of round % 2 === 1 ? [false, true] : [true, false])
      (traced ? tracedResults : results).push(await measuredRound(subject, turns, traced));
    const last = results.at(-1) as Round;
    const lastTraced = tracedResults.at(-1) as Round;
    process.stderr.write(
      `${subject.name} ${turns} turns, round ${round}/${rounds}: ${last.wallMsPerTurn.toFixed(4)} ms/turn, traced ${lastTraced.wallMsPerTurn.toFixed(4)}\n`,
    );
  }
  // Bytes and heap come from one more task, after the timed ones: the forced full collection a
  // heap reading needs slows the next tasks down about twice (V8 shrinks its young generation and
  // drops type feedback), which no long-lived host does to itself between tasks.
  const footprint = await runRound(subject, turns, false, true);
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  const label = `${subject.name}, ${turns.toLocaleString("en-US")} turns`;
  return [
    {
      subject: label,
      metric: "wall per turn",
      unit: "ms",
      samples: results.map((r) => r.wallMsPerTurn),
      target: { value: subject.target, higher: false },
    },
    { subject: label, metric: "CPU per turn", unit: "ms", samples: results.map((r) => r.cpuMsPerTurn) },
    {
      subject: label,
      metric: "per turn, last tenth of the task ÷ first tenth",
      unit: "×",
      samples: results.map((r) => r.growth),
    },
    {
      subject: label,
      metric: "wall per turn, tracing on (in-memory exporter)",
      unit: "ms",
      samples: tracedResults.map((r) => r.wallMsPerTurn),
    },
    {
      subject: label,
      metric: "CPU per turn, tracing on (in-memory exporter)",
      unit: "ms",
      samples: tracedResults.map((r) => r.cpuMsPerTurn),
    },
    {
      subject: label,
      metric: "tracing on ÷ off, CPU per turn",
      unit: "×",
      samples: tracedResults.map((r, i) => r.cpuMsPerTurn / (results[i] as Round).cpuMsPerTurn),
      target: { value: 1.1, higher: false },
    },
    {
      subject: label,
      metric: "tracing on ÷ off, wall per turn",
      unit: "×",
      samples: tracedResults.map((r, i) => r.wallMsPerTurn / (results[i] as Round).wallMsPerTurn),
    },
    { subject: label, metric: "wall per turn, first task of the process", unit: "ms", samples: [cold.wallMsPerTurn] },
    {
      subject: label,
      metric: "stored per turn",
      unit: "bytes",
      samples: [footprint.bytesPerTurn],
      target: { value: 1024, higher: false },
    },
    { subject: label, metric: "heap after a run, store open", unit: "MiB", samples: [footprint.heapMiB] },
    { subject: label, metric: "peak RSS of the process", unit: "MiB", samples: [peakRssMiB] },
  ];
}

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    store: { type: "string" },
    turns: { type: "string" },
    save: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

if (values.store !== undefined && values.turns !== undefined) {
  // A child of the run below, or one (store, length) run on its own.
  const machine = describeMachine();
  const rows = await runSubject(values.store, Number(values.turns), rounds);
  reportToParent(rows);
  saveIfAsked("harness", machine, rows);
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  console.log("workload: an instant scripted model, one instant read-only tool call per turn, a final answer\n");
  const rows: ResultRow[] = [];
  const stores = values.store === undefined ? Object.keys(SUBJECTS) : [values.store];
  const lengths = values.turns === undefined ? LENGTHS : [Number(values.turns)];
  for (const key of stores) {
    for (const turns of lengths) {
      rows.push(
        ...(await runInChild(fileURLToPath(import.meta.url), [
          "--store",
          key,
          "--turns",
          String(turns),
          "--rounds",
          String(rounds),
        ])),
      );
    }
  }
  console.log(`\n${formatTable(rows)}`);
  saveIfAsked("harness", machine, rows);
}
