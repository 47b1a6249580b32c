/**
 * The fork benchmark: `forkTask` of a whole 10,000-event task (read the source, find the cut, write
 * the copy and its `task_forked` in one `createTask`), on MemoryStore, SqliteStore (file) and
 * PostgresStore. Each store runs in its own process, a warm-up round then several rounds, each on
 * a fresh store holding a freshly written source; the fork's `createTask` is timed on its own too.
 *
 *   npm run bench:fork                                       # every store, 7 rounds
 *   npm run fork -w @sema-agent/bench -- --rounds 3 --store sqlite
 *   npm run bench:fork -- --save                             # and write bench/results/fork/<date>-<commit>.json
 *
 * PostgreSQL: SEMA_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test, a fresh schema per
 * round, dropped after it.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MemoryStore, type Store, type TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { forkTask } from "@sema-agent/core/time-travel";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import pg from "pg";
import {
  describeMachine,
  formatMachine,
  formatTable,
  meanJsonBytes,
  type ResultRow,
  realisticEvents,
  reportToParent,
  runInChild,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const POSTGRES_URL = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The source's length: its creation, a leg, tool-using turns, and two notes that end it on a step boundary. */
const LOG = 10_000;
/** The source is written as a leg writes it: appends of this many events. */
const APPEND = 100;

/** The events after the source's creation: a fork of it copies all of them. */
function sourceEvents(): TaskEvent[] {
  return [make.legStarted("leg-1"), ...realisticEvents(LOG - 4), make.note("end 1"), make.note("end 2")];
}

interface Opened {
  store: Store;
  close(): Promise<void>;
}

interface Subject {
  name: string;
  open(): Promise<Opened>;
}

const SUBJECTS: Record<string, Subject> = {
  memory: {
    name: "MemoryStore",
    open: async () => {
      const store = new MemoryStore();
      return { store, close: () => store.close() };
    },
  },
  sqlite: {
    name: "SqliteStore (file)",
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), "sema-bench-fork-"));
      const store = new SqliteStore({ path: join(dir, "bench.db") });
      return {
        store,
        async close() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  postgres: {
    name: "PostgresStore",
    open: async () => {
      const schema = `sema_bench_fork_${randomBytes(5).toString("hex")}`;
      const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
      return {
        store,
        async close() {
          await store.close();
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        },
      };
    },
  },
};

interface Round {
  forkMs: number;
  createMs: number;
}

/** `store` with its `createTask` timed into `times`. */
function timingCreates(store: Store, times: number[]): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      if (key !== "createTask") return value.bind(target);
      return async (...args: Parameters<Store["createTask"]>) => {
        const { ms, value: stored } = await timed(() => target.createTask(...args));
        times.push(ms);
        return stored;
      };
    },
  });
}

/** One round on a fresh store: write the source, then fork it whole. */
async function runRound(subject: Subject, events: readonly TaskEvent[]): Promise<Round> {
  const { store, close } = await subject.open();
  try {
    const [created] = await store.createTask({ created: make.created("bench", "A long task to fork") });
    if (created === undefined) throw new Error("createTask returned no event");
    for (let start = 0; start < events.length; start += APPEND)
      await store.append(created.taskId, events.slice(start, start + APPEND), { expectedSeq: start + 1 });
    const creates: number[] = [];
    const { ms, value: fork } = await timed(() => forkTask(timingCreates(store, creates), created.taskId));
    if (fork.seq !== LOG) throw new Error(`the fork copied ${fork.seq} events, not ${LOG}`);
    const { lastSeq } = await store.getTask(fork.taskId);
    if (lastSeq !== LOG + 1) throw new Error(`the fork has ${lastSeq} events, not ${LOG + 1}`);
    return { forkMs: ms, createMs: creates.reduce((sum, each) => sum + each, 0) };
  } finally {
    await close();
  }
}

/** Every round of one subject in this process, and its rows. */
async function runSubject(key: string, rounds: number): Promise<ResultRow[]> {
  const subject = SUBJECTS[key];
  if (subject === undefined) throw new Error(`unknown store ${key}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  const events = sourceEvents();
  await runRound(subject, events);
  const results: Round[] = [];
  for (let round = 1; round <= rounds; round++) {
    const last = await runRound(subject, events);
    results.push(last);
    process.stderr.write(
      `${subject.name} round ${round}/${rounds}: fork ${last.forkMs.toFixed(1)} ms, createTask ${last.createMs.toFixed(1)} ms\n`,
    );
  }
  const length = LOG.toLocaleString("en-US");
  return [
    {
      subject: subject.name,
      metric: `fork a ${length}-event task whole (forkTask)`,
      unit: "ms",
      samples: results.map((r) => r.forkMs),
    },
    {
      subject: subject.name,
      metric: `of which its write (one createTask of ${(LOG + 1).toLocaleString("en-US")} events)`,
      unit: "ms",
      samples: results.map((r) => r.createMs),
    },
  ];
}

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
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
  saveIfAsked("fork", machine, rows);
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  const events = sourceEvents();
  console.log(
    `source: ${LOG.toLocaleString("en-US")} events (tool-using turns), ${Math.round(meanJsonBytes(events))} bytes of JSON per event on average, written in appends of ${APPEND}\n`,
  );
  const rows: ResultRow[] = [];
  for (const key of Object.keys(SUBJECTS))
    rows.push(...(await runInChild(fileURLToPath(import.meta.url), ["--store", key, "--rounds", String(rounds)])));
  console.log(`\n${formatTable(rows)}`);
  saveIfAsked("fork", machine, rows);
}
