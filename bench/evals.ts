import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Agent, defineTool, isTerminal, runLeg, type Store, startTask } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import type { Scorer } from "@sema-agent/core/scoring";
import { scoreTask } from "@sema-agent/core/scoring";
import { ScriptedModel } from "@sema-agent/core/testing";
import {
  type Dataset,
  type DatasetCase,
  exactMatch,
  includes,
  parseDataset,
  runExperiment,
  toolTrajectory,
} from "@sema-agent/evals";
import {
  describeMachine,
  forceGc,
  formatMachine,
  formatTable,
  perSecond,
  type ResultRow,
  reportToParent,
  runInChild,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";
import { POSTGRES_URL, postgresUnreachable, type StoreSubject, storeSubjects } from "./lib/store-subjects.ts";

// ---------------------------------------------------------------- the workload

/** `cases` cases: "Capital of Land<i>?", expected "City<i>". */
function datasetText(cases: number): string {
  return Array.from({ length: cases }, (_, i) =>
    JSON.stringify({ id: `case-${i + 1}`, input: `Capital of Land${i + 1}?`, expected: `City${i + 1}` }),
  ).join("\n");
}

/** The country the task asks about, from its first user entry. */
function countryOf(request: ModelRequest): string {
  const first = request.transcript.find((entry) => entry.role === "user");
  return /Land\d+/.exec(first === undefined ? "" : JSON.stringify(first))?.[0] ?? "Nowhere";
}

const capitalOf = (country: string) => country.replace(/^Land/, "City");

/** The agent: look the capital up, then answer it. Scripted per transcript, so cases may interleave. */
function geoAgent(): Agent {
  const lookup = defineTool({
    name: "lookup",
    description: "Look a country's capital up",
    inputSchema: { type: "object", properties: { country: { type: "string" } }, required: ["country"] },
    readOnly: true,
    idempotent: true,
    execute: (input) => capitalOf(String((input as { country: unknown }).country)),
  });
  const model = new ScriptedModel(
    [
      (request) => ({ toolCalls: [{ name: "lookup", input: { country: countryOf(request) } }] }),
      (request) => ({ text: capitalOf(countryOf(request)) }),
    ],
    { mode: "by-transcript", id: "script:geo", recordRequests: false },
  );
  return { model, tools: [lookup] };
}

const scorers = (): Scorer[] => [exactMatch(), includes(), toolTrajectory({ calls: [{ name: "lookup" }] })];

// ---------------------------------------------------------------- the two ways to run it

/** `work` for every item, `concurrency` at once (the pool `runExperiment` uses). */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) await work(items[index] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Every case run directly: start, legs until it ends, score. Throws unless every verdict is 1. */
async function runDirect(store: Store, agent: Agent, dataset: Dataset, concurrency: number): Promise<void> {
  const judges = scorers();
  await pool(dataset.cases, concurrency, async (c: DatasetCase) => {
    const taskId = await startTask(store, { objective: c.input, principal: "local", agent: "default" });
    let { status } = await runLeg({ store, agent }, taskId);
    for (let legs = 1; legs < 20 && !isTerminal(status); legs++) ({ status } = await runLeg({ store, agent }, taskId));
    const results = await scoreTask(store, taskId, judges, {
      principal: "local",
      ...(c.expected === undefined ? {} : { expected: c.expected }),
    });
    if (status !== "completed" || results.some((r) => r.value !== 1))
      throw new Error(`direct: case ${c.id} ended ${status}, scores ${JSON.stringify(results)}`);
  });
}

/** The same cases as an experiment. Throws unless every case completed with every verdict 1. */
async function runAsExperiment(store: Store, agent: Agent, dataset: Dataset, concurrency: number): Promise<void> {
  const result = await runExperiment({ store, agent, dataset, scorers: scorers(), concurrency });
  const means = Object.values(result.means);
  if (result.totals.completed !== dataset.cases.length || means.some((mean) => mean !== 1))
    throw new Error(`experiment: ${result.totals.completed} completed, means ${JSON.stringify(result.means)}`);
}

const MODES = { direct: runDirect, experiment: runAsExperiment } as const;
type Mode = keyof typeof MODES;

// ---------------------------------------------------------------- stores

const SUBJECTS: Record<string, StoreSubject> = storeSubjects("evals");

/** `store` with every method call counted into `counts`. */
function counting(store: Store, counts: Map<string, number>): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        counts.set(String(key), (counts.get(String(key)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

// ---------------------------------------------------------------- one store, in its own process

/** One run of `mode` on a fresh store: its wall time and the process's CPU time (ms). */
async function once(subject: StoreSubject, mode: Mode, agent: Agent, dataset: Dataset, concurrency: number) {
  const { store, close } = await subject.open();
  try {
    // The last run's garbage is collected now, not during this one.
    forceGc();
    const cpu = process.cpuUsage();
    const { ms } = await timed(() => MODES[mode](store, agent, dataset, concurrency));
    const used = process.cpuUsage(cpu);
    return { wall: ms, cpu: (used.user + used.system) / 1000 };
  } finally {
    await close();
  }
}

/** Store calls per case of `mode`, at concurrency 1, by method. */
async function callsPerCase(subject: StoreSubject, mode: Mode, agent: Agent, dataset: Dataset) {
  const { store, close } = await subject.open();
  const counts = new Map<string, number>();
  try {
    await MODES[mode](counting(store, counts), agent, dataset, 1);
  } finally {
    await close();
  }
  const per = (n: number) => n / dataset.cases.length;
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  const methods = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${per(n).toFixed(2)}`);
  return { total: per(total), methods };
}

async function runSubject(key: string, cases: number, rounds: number, levels: number[]): Promise<ResultRow[]> {
  const subject = SUBJECTS[key];
  if (subject === undefined) throw new Error(`unknown store ${key}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  const dataset = await parseDataset(datasetText(cases));
  const agent = geoAgent();
  const rows: ResultRow[] = [];
  const n = `${cases.toLocaleString("en-US")} cases`;
  for (const concurrency of levels) {
    // Warm-up: compile both paths at this concurrency.
    for (let warm = 0; warm < 2; warm++)
      for (const mode of ["direct", "experiment"] as const) await once(subject, mode, agent, dataset, concurrency);
    const wall: Record<Mode, number[]> = { direct: [], experiment: [] };
    const cpu: Record<Mode, number[]> = { direct: [], experiment: [] };
    for (let round = 0; round < rounds; round++) {
      const order: Mode[] = round % 2 === 0 ? ["direct", "experiment"] : ["experiment", "direct"];
      for (const mode of order) {
        const run = await once(subject, mode, agent, dataset, concurrency);
        wall[mode].push(run.wall);
        cpu[mode].push(run.cpu);
      }
      process.stderr.write(
        `${subject.name}, concurrency ${concurrency}, round ${round + 1}/${rounds}: direct ${wall.direct.at(-1)?.toFixed(0)} ms, runExperiment ${wall.experiment.at(-1)?.toFixed(0)} ms\n`,
      );
    }
    const at = `concurrency ${concurrency}`;
    const ratios = (of: Record<Mode, number[]>) => of.experiment.map((each, i) => each / (of.direct[i] as number));
    rows.push(
      {
        subject: subject.name,
        metric: `direct, ${n}, ${at}`,
        unit: "cases/s",
        samples: wall.direct.map((each) => perSecond(cases, each)),
      },
      {
        subject: subject.name,
        metric: `runExperiment, ${n}, ${at}`,
        unit: "cases/s",
        samples: wall.experiment.map((each) => perSecond(cases, each)),
      },
      { subject: subject.name, metric: `runExperiment ÷ direct, wall time, ${at}`, unit: "×", samples: ratios(wall) },
      { subject: subject.name, metric: `runExperiment ÷ direct, CPU time, ${at}`, unit: "×", samples: ratios(cpu) },
    );
  }
  for (const mode of ["direct", "experiment"] as const) {
    const calls = await callsPerCase(subject, mode, agent, dataset);
    process.stderr.write(`${subject.name}, ${mode}: store calls per case: ${calls.methods.join(", ")}\n`);
    rows.push({
      subject: subject.name,
      metric: `store calls per case, ${mode === "direct" ? "direct" : "runExperiment"}`,
      unit: "calls",
      samples: [calls.total],
    });
  }
  return rows;
}

// ---------------------------------------------------------------- the run

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "200" },
    rounds: { type: "string", default: "7" },
    concurrency: { type: "string", default: "1,50" },
    store: { type: "string" },
    save: { type: "boolean", default: false },
  },
});
const cases = Number(values.cases);
const rounds = Number(values.rounds);
const levels = values.concurrency.split(",").map(Number);
if (!Number.isInteger(cases) || cases < 1) throw new Error(`--cases must be a positive integer, got ${values.cases}`);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
if (levels.some((level) => !Number.isInteger(level) || level < 1 || level > 256))
  throw new Error(`--concurrency takes integers from 1 to 256, got ${values.concurrency}`);

const childArgs = ["--cases", String(cases), "--rounds", String(rounds), "--concurrency", levels.join(",")];
if (values.store !== undefined) {
  // A child of the run below, or one store run on its own (which saves, if asked, what it reports).
  const machine = describeMachine();
  const rows = await runSubject(values.store, cases, rounds, levels);
  reportToParent(rows);
  saveIfAsked("evals", machine, rows);
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  console.log(
    `${cases} cases, each a two-turn task (a lookup tool call, then the answer) scored by exact-match, includes and tool-trajectory; concurrency ${levels.join(" and ")}, ${rounds} rounds\n`,
  );
  const unreachable = await postgresUnreachable();
  const keys = Object.keys(SUBJECTS).filter((key) => key !== "postgres" || unreachable === undefined);
  if (unreachable !== undefined) console.log(`PostgresStore skipped: no server at ${POSTGRES_URL} (${unreachable})\n`);
  const rows: ResultRow[] = [];
  for (const key of keys)
    rows.push(...(await runInChild(fileURLToPath(import.meta.url), ["--store", key, ...childArgs])));
  console.log(`\n${formatTable(rows)}`);
  saveIfAsked(
    "evals",
    machine,
    rows,
    unreachable === undefined ? undefined : `PostgreSQL was not reachable (${unreachable}): no PostgresStore figures.`,
  );
}
