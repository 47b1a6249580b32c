/**
 * A durable turn beside SQLite's floor (issue 36): on this machine, in one process, each figure
 * per operation, rounds alternating their order so a slow minute hits every figure alike:
 *
 * - an empty write transaction (`BEGIN IMMEDIATE; COMMIT`) on a raw `node:sqlite` connection
 *   with the store's settings (WAL, `synchronous = NORMAL`): the floor of any commit;
 * - a 1 KB row inserted in its own transaction on that raw connection;
 * - a 1 KB append through `SqliteStore.append` (one event, conditional on `expectedSeq`);
 * - two such appends, one after the other (what a durable turn's two transactions cost);
 * - a lone task's durable turn: `startTask` and one `runLeg` of a `TURNS`-turn task on a
 *   `SqliteStore` file, an instant `ScriptedModel` calling the instant read-only `lookup` tool
 *   every turn, per turn (the peers benchmark's durable-200 workload).
 *
 * The ratio "durable turn ÷ two appends" is the figure issue 36 asks to bring within 2×.
 *
 *   npm run bench:durable-turn
 *   npm run bench:durable-turn -- --rounds 9 --save
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { runLeg, type Store, startTask, type TaskEvent } from "@sema-agent/core";
import { lookupTool, lookupTurns, make, ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    turns: { type: "string", default: "200" },
    ops: { type: "string", default: "2000" },
    save: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const TURNS = Number(values.turns);
/** Operations per timed run of the floor figures. */
const OPS = Number(values.ops);
for (const [name, value] of [
  ["--rounds", ROUNDS],
  ["--turns", TURNS],
  ["--ops", OPS],
] as const)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);

/** A tool result of about 1 KB of JSON. */
const KB_EVENT: TaskEvent = make.toolResult("call_1", "x".repeat(900), "read_file");

/** A raw connection set up as the store sets up its own. */
function rawDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  return db;
}

/** Wall and CPU time of one operation, µs. */
interface Cost {
  wall: number;
  cpu: number;
}

/** The process's CPU time (user and system), µs. */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Run `work` once; its wall and CPU time divided by `count` operations. */
async function costOf(count: number, work: () => Promise<void>): Promise<Cost> {
  const cpu = cpuNow();
  const start = performance.now();
  await work();
  return { wall: ((performance.now() - start) * 1000) / count, cpu: (cpuNow() - cpu) / count };
}

/** Cost per operation of `count` runs of `op`. */
function perOp(count: number, op: (i: number) => unknown): Promise<Cost> {
  return costOf(count, async () => {
    for (let i = 0; i < count; i++) await op(i);
  });
}

async function emptyTransactions(dir: string): Promise<Cost> {
  const db = rawDatabase(join(dir, "raw-empty.db"));
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  try {
    return await perOp(OPS, () => {
      begin.run();
      commit.run();
    });
  } finally {
    db.close();
  }
}

async function rawKbInserts(dir: string): Promise<Cost> {
  const db = rawDatabase(join(dir, "raw-insert.db"));
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const insert = db.prepare("INSERT INTO rows (body) VALUES (?)");
  const body = JSON.stringify(KB_EVENT);
  try {
    return await perOp(OPS, () => {
      begin.run();
      insert.run(body);
      commit.run();
    });
  } finally {
    db.close();
  }
}

/** µs per `SqliteStore.append` of `perStep` 1 KB appends in a row (each awaited). */
async function storeAppends(dir: string, perStep: number): Promise<Cost> {
  const store = new SqliteStore({ path: join(dir, `appends-${perStep}.db`) });
  try {
    const [created] = await store.createTask({ created: make.created("bench", "Benchmark a durable turn") });
    if (created === undefined) throw new Error("createTask returned no event");
    let seq = created.seq;
    const steps = Math.ceil(OPS / perStep);
    return await perOp(steps, async () => {
      for (let k = 0; k < perStep; k++) {
        await store.append(created.taskId, [KB_EVENT], { expectedSeq: seq });
        seq++;
      }
    });
  } finally {
    await store.close();
  }
}

async function durableTask(store: Store, turns: number): Promise<void> {
  const taskId = await startTask(store, { objective: "Benchmark a durable turn" });
  const model = new ScriptedModel(lookupTurns(turns), { recordRequests: false });
  const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
}

/** µs per turn of a lone `TURNS`-turn task on a fresh SqliteStore file (its start included). */
async function durableTurn(dir: string, round: number): Promise<Cost> {
  const store = new SqliteStore({ path: join(dir, `durable-${round}.db`) });
  try {
    return await costOf(TURNS, () => durableTask(store, TURNS));
  } finally {
    await store.close();
  }
}

const FIGURES = {
  empty: { metric: "empty transaction (BEGIN IMMEDIATE; COMMIT), raw node:sqlite", run: emptyTransactions },
  insert: { metric: "1 KB row in its own transaction, raw node:sqlite", run: rawKbInserts },
  append: { metric: "1 KB append (SqliteStore.append)", run: (dir: string) => storeAppends(dir, 1) },
  twoAppends: { metric: "two 1 KB appends, one after the other", run: (dir: string) => storeAppends(dir, 2) },
  turn: {
    metric: `durable turn, a lone ${TURNS}-turn task (startTask + runLeg, instant model and tool)`,
    run: durableTurn,
  },
} as const;
type Figure = keyof typeof FIGURES;

const machine = describeMachine();
console.log(formatMachine(machine));
const dir = mkdtempSync(join(tmpdir(), "sema-durable-turn-"));
const samples = new Map<Figure, Cost[]>(Object.keys(FIGURES).map((key) => [key as Figure, []]));
const ratios: Cost[] = [];
try {
  // Warm-up: the JIT, the statement caches and the page cache, not counted.
  const warm = new SqliteStore({ path: join(dir, "warm-up.db") });
  for (let i = 0; i < 5; i++) await durableTask(warm, TURNS);
  await warm.close();
  for (const key of Object.keys(FIGURES) as Figure[]) await FIGURES[key].run(dir, -1);
  const order = Object.keys(FIGURES) as Figure[];
  for (let round = 0; round < ROUNDS; round++) {
    const taken: Partial<Record<Figure, Cost>> = {};
    // Rotate the order each round.
    for (let k = 0; k < order.length; k++) {
      const key = order[(round + k) % order.length] as Figure;
      const cost = await FIGURES[key].run(dir, round);
      taken[key] = cost;
      samples.get(key)?.push(cost);
    }
    const turn = taken.turn ?? { wall: Number.NaN, cpu: Number.NaN };
    const two = taken.twoAppends ?? { wall: Number.NaN, cpu: Number.NaN };
    const ratio = { wall: turn.wall / two.wall, cpu: turn.cpu / two.cpu };
    ratios.push(ratio);
    const shown = order.map((key) => `${key} ${taken[key]?.wall.toFixed(1)} (CPU ${taken[key]?.cpu.toFixed(1)}) µs`);
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: ${shown.join(", ")}; turn ÷ two appends ${ratio.wall.toFixed(2)} (CPU ${ratio.cpu.toFixed(2)})\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const SUBJECT = "SqliteStore (file)";
const rows: ResultRow[] = [];
for (const [measure, pick] of [
  ["wall", (cost: Cost) => cost.wall],
  ["CPU", (cost: Cost) => cost.cpu],
] as const) {
  for (const key of Object.keys(FIGURES) as Figure[])
    rows.push({
      subject: SUBJECT,
      metric: `${FIGURES[key].metric}, ${measure}`,
      unit: "µs",
      samples: (samples.get(key) ?? []).map(pick),
    });
  rows.push({
    subject: SUBJECT,
    metric: `durable turn ÷ two appends (same round), ${measure}`,
    unit: "×",
    samples: ratios.map(pick),
    target: { value: 2, higher: false },
  });
}
console.log(formatTable(rows));
saveIfAsked("durable-turn", machine, rows);
