/**
 * The store benchmark: appends one event per transaction, appends in batches of 100, a full read
 * of the batched log, memory held, and bytes on disk per event, for MemoryStore and SqliteStore
 * on a real file. Each store runs in its own process, several rounds on a fresh store each.
 *
 *   npm run bench:store                                      # every store, 5 rounds
 *   npm run store -w @sema-agent/bench -- --rounds 3 --store sqlite
 *   npm run bench:store -- --save                            # and write bench/results/store/<date>-<commit>.json
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MemoryStore, type Store, type TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import {
  describeMachine,
  formatMachine,
  formatTable,
  meanJsonBytes,
  memoryAfterGc,
  perSecond,
  type ResultRow,
  realisticEvents,
  reportToParent,
  runInChild,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const SINGLE_APPENDS = 20_000;
const BATCHES = 1_000;
const BATCH_SIZE = 100;
/** The batched log: the task_created event, then every batch. */
const LOG_LENGTH = 1 + BATCHES * BATCH_SIZE;

interface Subject {
  name: string;
  open(dir: string): Store;
  /** The database file, for subjects that write one. */
  file?: string;
  targets?: { single: number; batched: number };
}

const SUBJECTS: Record<string, Subject> = {
  memory: { name: "MemoryStore", open: () => new MemoryStore() },
  sqlite: {
    name: "SqliteStore (file)",
    open: (dir) => new SqliteStore({ path: join(dir, "bench.db") }),
    file: "bench.db",
    targets: { single: 20_000, batched: 200_000 },
  },
};

interface Round {
  singlePerSecond: number;
  batchedEventsPerSecond: number;
  readMs: number;
  rssMiB: number;
  heapMiB: number;
  bytesPerEvent?: number;
}

async function newTask(store: Store): Promise<string> {
  const [created] = await store.createTask({ created: make.created("bench", "Benchmark the store") });
  if (created === undefined) throw new Error("createTask returned no event");
  return created.taskId;
}

/** One round on a fresh store: `scale` < 1 makes a short warm-up round. */
async function runRound(subject: Subject, events: readonly TaskEvent[], scale = 1): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), "sema-bench-"));
  try {
    const store = subject.open(dir);
    const singles = Math.round(SINGLE_APPENDS * scale);
    const single = await newTask(store);
    const singleRun = await timed(async () => {
      for (let i = 0; i < singles; i++) {
        await store.append(single, [events[i % events.length] as TaskEvent], { expectedSeq: i + 1 });
      }
    });
    const batches = Math.round(BATCHES * scale);
    const batch = events.slice(0, BATCH_SIZE);
    const batched = await newTask(store);
    const batchRun = await timed(async () => {
      for (let i = 0; i < batches; i++) {
        await store.append(batched, batch, { expectedSeq: 1 + i * BATCH_SIZE });
      }
    });
    // Only the length leaves this call, so the memory reading below does not count the events read.
    const readRun = await timed(async () => (await store.read(batched)).length);
    if (readRun.value !== 1 + batches * BATCH_SIZE) throw new Error(`read ${readRun.value} events`);
    const memory = memoryAfterGc();
    await store.close();
    const round: Round = {
      singlePerSecond: perSecond(singles, singleRun.ms),
      batchedEventsPerSecond: perSecond(batches * BATCH_SIZE, batchRun.ms),
      readMs: readRun.ms,
      ...memory,
    };
    // After close the WAL is checkpointed into the database file and removed: the file is all of it.
    if (subject.file !== undefined)
      round.bytesPerEvent = statSync(join(dir, subject.file)).size / (2 + singles + batches * BATCH_SIZE);
    return round;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run every round of one subject in this process and return its rows. */
async function runSubject(key: string, rounds: number): Promise<ResultRow[]> {
  const subject = SUBJECTS[key];
  if (subject === undefined) throw new Error(`unknown store ${key}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  const events = realisticEvents(300);
  const idle = memoryAfterGc();
  await runRound(subject, events, 0.1);
  const results: Round[] = [];
  for (let round = 1; round <= rounds; round++) {
    results.push(await runRound(subject, events));
    const last = results.at(-1) as Round;
    process.stderr.write(
      `${subject.name} round ${round}/${rounds}: ${Math.round(last.singlePerSecond)} appends/s, ` +
        `${Math.round(last.batchedEventsPerSecond)} events/s batched, read ${Math.round(last.readMs)} ms\n`,
    );
  }
  const column = (pick: (round: Round) => number | undefined) =>
    results.map(pick).filter((value): value is number => value !== undefined);
  const rows: ResultRow[] = [
    {
      subject: subject.name,
      metric: `single-event appends, ${SINGLE_APPENDS.toLocaleString("en-US")} transactions`,
      unit: "appends/s",
      samples: column((r) => r.singlePerSecond),
      ...(subject.targets === undefined ? {} : { target: { value: subject.targets.single, higher: true } }),
    },
    {
      subject: subject.name,
      metric: `batched appends, ${BATCHES.toLocaleString("en-US")} × ${BATCH_SIZE} events`,
      unit: "events/s",
      samples: column((r) => r.batchedEventsPerSecond),
      ...(subject.targets === undefined ? {} : { target: { value: subject.targets.batched, higher: true } }),
    },
    {
      subject: subject.name,
      metric: `read the whole ${LOG_LENGTH.toLocaleString("en-US")}-event log`,
      unit: "ms",
      samples: column((r) => r.readMs),
    },
    { subject: subject.name, metric: "RSS, idle before the runs", unit: "MiB", samples: [idle.rssMiB] },
    { subject: subject.name, metric: "RSS after a round, store open", unit: "MiB", samples: column((r) => r.rssMiB) },
    { subject: subject.name, metric: "heap after a round, store open", unit: "MiB", samples: column((r) => r.heapMiB) },
  ];
  const bytes = column((r) => r.bytesPerEvent);
  if (bytes.length > 0)
    rows.push({ subject: subject.name, metric: "on disk per event", unit: "bytes", samples: bytes });
  return rows;
}

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    store: { type: "string" },
    save: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

if (values.store !== undefined) {
  // A child of the run below, or one store run on its own (which saves, if asked, what it reports).
  const machine = describeMachine();
  const rows = await runSubject(values.store, rounds);
  reportToParent(rows);
  saveIfAsked("store", machine, rows);
} else {
  const machine = describeMachine();
  const events = realisticEvents(300);
  console.log(formatMachine(machine));
  console.log(
    `workload: model_turn (1 tool call) / tool_call_started / tool_result, ${Math.round(meanJsonBytes(events))} bytes of JSON per event on average\n`,
  );
  const rows: ResultRow[] = [];
  for (const key of Object.keys(SUBJECTS)) {
    rows.push(...(await runInChild(fileURLToPath(import.meta.url), ["--store", key, "--rounds", String(rounds)])));
  }
  console.log(`\n${formatTable(rows)}`);
  const raw = fileURLToPath(new URL("./results/raw/", import.meta.url));
  mkdirSync(raw, { recursive: true });
  const file = join(raw, `store-${machine.date.replaceAll(":", "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ machine, rows }, null, 2)}\n`);
  console.log(`\nraw results: ${file}`);
  saveIfAsked("store", machine, rows);
}
