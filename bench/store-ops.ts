/**
 * Operating a store over months (docs/guide/operating-a-store.md): each case in a fresh process,
 * so its peak memory is its own.
 *
 * - prune: N finished tasks (default 100,000; a created, a leg, a turn, a completion each) on a
 *   SQLite file (or, with `--prune-store postgres`, a PostgreSQL schema), every one pruned by
 *   `pruneStore`: the time, and the file's size (the schema's tables) before and after.
 * - migrate: M tasks (default 10,000, as above) copied from a SQLite file to PostgreSQL by
 *   `migrateStores` (or back, with `--migrate-from postgres`): the time.
 * - huge: one task of E events (default 100,000; tool-using turns, a snapshot at its end as a
 *   leg leaves it) on a SQLite file: its resume's state load (`loadTaskState`), its overview
 *   (`GET /v1/tasks/{id}`, in process), and its catch-up from seq 0 (`store.watch`, what the SSE
 *   route reads, each event serialized as it writes it): time and the peak RSS above the
 *   process's peak before the step.
 *
 * The prune deletes `--prune-batch` tasks a batch (default 100, as `sema prune`; 1 is one task a
 * transaction, as before batching); the migration copies `--migrate-concurrency` tasks at once
 * (default 8, as `sema migrate`; 1 is one after the other).
 *
 *   npm run bench:store-ops                       # all three cases
 *   npm run bench:store-ops -- --cases prune --tasks 10000 --prune-batch 1 --save
 *   npm run bench:store-ops -- --cases prune,migrate --tasks 10000 --prune-store postgres --migrate-from postgres
 *   npm run store-ops -w @sema-agent/bench -- --case prune --tasks 20000
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fold, loadTaskState, type Store, startTask, type TaskEvent } from "@sema-agent/core";
import { stateToJson } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import pg from "pg";
import { migrateStores } from "../packages/cli/src/migrate/migrate-stores.ts";
import { pruneStore } from "../packages/cli/src/retention/prune.ts";
import {
  benchApp,
  describeMachine,
  formatMachine,
  formatTable,
  type ResultRow,
  realisticEvents,
  reportToParent,
  runInChild,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";
import { POSTGRES_URL } from "./lib/store-subjects.ts";

const { values } = parseArgs({
  options: {
    case: { type: "string" },
    cases: { type: "string", default: "prune,migrate,huge" },
    "prune-batch": { type: "string", default: "100" },
    "migrate-concurrency": { type: "string", default: "8" },
    "prune-store": { type: "string", default: "sqlite" },
    "migrate-from": { type: "string", default: "sqlite" },
    tasks: { type: "string", default: "100000" },
    migrate: { type: "string", default: "10000" },
    events: { type: "string", default: "100000" },
    save: { type: "boolean", default: false },
  },
});
const TASKS = Number(values.tasks);
const MIGRATE = Number(values.migrate);
const EVENTS = Number(values.events);
const PRUNE_BATCH = Number(values["prune-batch"]);
const MIGRATE_CONCURRENCY = Number(values["migrate-concurrency"]);
const CASES = new Set((values.cases ?? "").split(","));
const PRUNE_POSTGRES = values["prune-store"] === "postgres";
const MIGRATE_FROM_POSTGRES = values["migrate-from"] === "postgres";
if (
  !["sqlite", "postgres"].includes(values["prune-store"] ?? "") ||
  !["sqlite", "postgres"].includes(values["migrate-from"] ?? "")
)
  throw new Error("--prune-store and --migrate-from take sqlite or postgres");

/** The peak RSS of this process so far, in MiB. */
function peakMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

const finished: TaskEvent[] = [
  make.legStarted("l1"),
  ...realisticEvents(3),
  { type: "task_completed", v: 1, result: "done" },
  make.legEnded("l1"),
];

/** `n` finished tasks written concurrently (so group commit batches them), 500 at a time. */
async function seedFinished(store: Store, n: number): Promise<void> {
  for (let done = 0; done < n; done += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - done) }, async (_, i) => {
        const [created] = await store.createTask({ created: make.created(`p${(done + i) % 10}`) });
        await store.append(created?.taskId ?? "", finished, { expectedSeq: 1 });
      }),
    );
  }
}

function tempFile(): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "sema-bench-store-ops-"));
  return { path: join(dir, "bench.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Drop the PostgreSQL schema `schema` a case made. */
async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

async function pruneCase(): Promise<ResultRow[]> {
  const { path, remove } = tempFile();
  const schema = `sema_bench_prune_${process.pid}`;
  const store = PRUNE_POSTGRES
    ? await PostgresStore.open({ connectionString: POSTGRES_URL, schema })
    : new SqliteStore({ path });
  /** The file's size, or the schema's tables, indexes and TOAST, in MiB. */
  const size = async () =>
    (PRUNE_POSTGRES ? ((await store.stats?.({ events: false }))?.storeBytes ?? 0) : statSync(path).size) / 2 ** 20;
  try {
    await seedFinished(store, TASKS);
    if (store instanceof SqliteStore) await store.reclaimSpace();
    const before = await size();
    const { ms, value: report } = await timed(() =>
      pruneStore(store, {
        policy: { default: { olderThan: "0ms" } },
        nowMs: Date.now() + 1000,
        batchSize: PRUNE_BATCH,
      }),
    );
    if (report.removed.length !== TASKS) throw new Error(`pruned ${report.removed.length} of ${TASKS}`);
    const after = await size();
    const n = TASKS.toLocaleString("en-US");
    const where = PRUNE_POSTGRES ? "PostgresStore" : "SqliteStore (file)";
    const subject = `${where}, ${PRUNE_BATCH} task${PRUNE_BATCH === 1 ? "" : "s"} a batch`;
    const space = PRUNE_POSTGRES ? "tables (pg_total_relation_size)" : "file";
    return [
      { subject, metric: `prune ${n} finished tasks (sema prune)`, unit: "s", samples: [ms / 1000] },
      { subject, metric: `prune of ${n}: time a task`, unit: "ms", samples: [ms / TASKS] },
      { subject, metric: `${space} before the prune (${n} tasks)`, unit: "MiB", samples: [before] },
      { subject, metric: `${space} after the prune`, unit: "MiB", samples: [after] },
    ];
  } finally {
    await store.close();
    if (PRUNE_POSTGRES) await dropSchema(schema);
    remove();
  }
}

async function migrateCase(): Promise<ResultRow[]> {
  const { path, remove } = tempFile();
  const schema = `sema_bench_migrate_${process.pid}`;
  const sqlite = new SqliteStore({ path });
  const postgres = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
  const [source, target] = MIGRATE_FROM_POSTGRES ? [postgres, sqlite] : [sqlite, postgres];
  try {
    await seedFinished(source, MIGRATE);
    const { ms, value: report } = await timed(() =>
      migrateStores(source, target, { concurrency: MIGRATE_CONCURRENCY }),
    );
    if (report.copied.length !== MIGRATE) throw new Error(`copied ${report.copied.length} of ${MIGRATE}`);
    const direction = MIGRATE_FROM_POSTGRES ? "PostgresStore → SqliteStore" : "SqliteStore → PostgresStore";
    const subject = `${direction}, ${MIGRATE_CONCURRENCY} at once`;
    const n = MIGRATE.toLocaleString("en-US");
    return [
      { subject, metric: `migrate ${n} tasks (sema migrate)`, unit: "s", samples: [ms / 1000] },
      { subject, metric: `migrate of ${n}: time a task`, unit: "ms", samples: [ms / MIGRATE] },
    ];
  } finally {
    await sqlite.close();
    await postgres.close();
    await dropSchema(schema);
    remove();
  }
}

/** One step of the huge task, in a process that has only opened the store: time and peak RSS above the peak before. */
async function hugeStep(step: string, path: string, taskId: string): Promise<ResultRow[]> {
  const store = new SqliteStore({ path });
  const { app, token } = await benchApp(store);
  const subject = `${EVENTS.toLocaleString("en-US")}-event task, SqliteStore (file)`;
  try {
    // The routes' first request loads and compiles them: not the task's cost.
    await app.request("/v1/tasks/warm-up", { headers: { authorization: `Bearer ${token}` } });
    const base = peakMiB();
    let ms: number;
    if (step === "resume") ms = (await timed(() => loadTaskState(store, taskId))).ms;
    else if (step === "overview") {
      ms = (
        await timed(async () => {
          const response = await app.request(`/v1/tasks/${taskId}`, { headers: { authorization: `Bearer ${token}` } });
          if (response.status !== 200) throw new Error(`GET: ${response.status}`);
          await response.arrayBuffer();
        })
      ).ms;
    } else {
      ms = (
        await timed(async () => {
          const { lastSeq } = await store.getTask(taskId);
          const abort = new AbortController();
          let bytes = 0;
          for await (const event of store.watch(taskId, { afterSeq: 0, signal: abort.signal })) {
            bytes += JSON.stringify(event).length;
            if (event.seq === lastSeq) abort.abort();
          }
          return bytes;
        })
      ).ms;
    }
    const peak = peakMiB() - base;
    const what = {
      resume: "resume: load the state",
      overview: "overview: GET /v1/tasks/{id}",
      catchup: "SSE catch-up from seq 0",
    }[step];
    return [
      { subject, metric: `${what} (time)`, unit: "ms", samples: [ms] },
      { subject, metric: `${what} (peak RSS above the process's peak before)`, unit: "MiB", samples: [peak] },
    ];
  } finally {
    await store.close();
  }
}

/** The file of the huge task: events written in appends of 1,000, then a snapshot at its end. */
async function hugeFile(path: string): Promise<string> {
  const store = new SqliteStore({ path });
  await benchApp(store); // its token store, in the same file
  const taskId = await startTask(store, { objective: "A very long task", principal: "bench" });
  for (let done = 0; done < EVENTS; done += 1000) {
    const { lastSeq } = await store.getTask(taskId);
    await store.append(taskId, realisticEvents(Math.min(1000, EVENTS - done)), { expectedSeq: lastSeq });
  }
  const { lastSeq } = await store.getTask(taskId);
  await store.append(taskId, [{ type: "task_completed", v: 1, result: "done" }], { expectedSeq: lastSeq });
  const state = fold(await store.read(taskId));
  await store.putSnapshot({ taskId, seq: state.lastSeq, v: state.v, state: stateToJson(state) });
  await store.close();
  return taskId;
}

const self = fileURLToPath(import.meta.url);
if (values.case === "prune") reportToParent(await pruneCase());
else if (values.case === "migrate") reportToParent(await migrateCase());
else if (values.case?.startsWith("huge:")) {
  const [, step, path, taskId] = values.case.split(":");
  reportToParent(await hugeStep(step ?? "", path ?? "", taskId ?? ""));
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  const rows: ResultRow[] = [];
  const args = [
    ...["--tasks", String(TASKS), "--migrate", String(MIGRATE), "--events", String(EVENTS)],
    ...["--prune-batch", String(PRUNE_BATCH), "--migrate-concurrency", String(MIGRATE_CONCURRENCY)],
    ...["--prune-store", values["prune-store"] ?? "sqlite", "--migrate-from", values["migrate-from"] ?? "sqlite"],
  ];
  if (CASES.has("prune")) rows.push(...(await runInChild(self, ["--case", "prune", ...args])));
  if (CASES.has("migrate")) rows.push(...(await runInChild(self, ["--case", "migrate", ...args])));
  if (CASES.has("huge")) {
    const { path, remove } = tempFile();
    try {
      const taskId = await hugeFile(path);
      for (const step of ["resume", "overview", "catchup"])
        rows.push(...(await runInChild(self, ["--case", `huge:${step}:${path}:${taskId}`, ...args])));
    } finally {
      remove();
    }
  }
  console.log(`\n${formatTable(rows)}`);
  saveIfAsked("store-ops", machine, rows);
}
