/**
 * What the `blob_refs` trigger (docs/guide/operating-a-store.md, "Blobs") costs each event row,
 * on SQLite and PostgreSQL: ROWS rows of one kind of event body inserted into a task's events in
 * one transaction (SQLite: one prepared INSERT a row; PostgreSQL: one INSERT … SELECT over
 * generate_series), with no trigger, with the trigger of SQLite schema 12 / PostgreSQL schema 11
 * (any "digest" member, the one before), and with today's (content parts only: on SQLite, since
 * schema 13, no trigger but the store's own insert of each reference, done here in the loop), each timed REPEAT
 * times, the median kept. A trigger's cost an append is its row time less the row time without.
 * Kinds: a `model_turn` v1 (no digest), a `model_turn` v2 (request digests, no blob), an
 * `approval_decided` (a call digest, no blob), and a `human_input` v2 naming a blob.
 *
 *   npx node --conditions=source bench/blob-refs-trigger.ts [--rows 20000] [--repeat 5]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import type { TaskEvent } from "@sema-agent/core";
import { blobDigests } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import pg from "pg";
import { POSTGRES_URL } from "./lib/store-subjects.ts";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "20000" }, repeat: { type: "string", default: "5" } },
});
const ROWS = Number(values.rows);
const REPEAT = Number(values.repeat);
const hex = (c: string) => c.repeat(64);

const kinds: Record<string, TaskEvent> = {
  "model_turn v1": make.turn(1, "I read the file."),
  "model_turn v2": {
    ...make.turn(1, "I read the file."),
    v: 2,
    request: {
      digest: hex("a"),
      system: hex("b"),
      tools: hex("c"),
      settings: hex("d"),
      transcript: hex("e"),
      entries: 3,
    },
  },
  approval_decided: {
    type: "approval_decided",
    v: 1,
    callId: "call_1",
    digest: hex("f"),
    decision: "approve",
    actor: { id: "u1", verified: true },
  },
  "human_input v2 (blob)": make.imageInput(hex("9"), 1024),
};

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * µs a row of `time(body, from)` (ROWS rows from seq `from`) under each of three triggers `use`
 * switches to: [none, before, today], the median of REPEAT rounds, the three interleaved in each
 * round (each round starting with the next) so a table growing or a load changing weighs on all
 * three alike.
 */
async function perRow(
  time: (body: string, from: number) => Promise<number>,
  use: (variant: 0 | 1 | 2) => Promise<void>,
  body: string,
  next: () => number,
): Promise<[number, number, number]> {
  const samples: [number[], number[], number[]] = [[], [], []];
  for (let i = 0; i < REPEAT; i++) {
    // Each round starts with another of the three, so none of them always comes first.
    for (const variant of ([0, 1, 2] as const).map((v) => ((v + i) % 3) as 0 | 1 | 2)) {
      await use(variant);
      samples[variant].push(((await time(body, next())) * 1000) / ROWS);
    }
  }
  return [median(samples[0]), median(samples[1]), median(samples[2])];
}

/** Row times by kind: [no trigger, the one before, today's]. */
type Times = Map<string, [number, number, number]>;

/** Schema 12's SQLite trigger, as it was. */
const SQLITE_BEFORE = `CREATE TRIGGER events_blob_refs AFTER INSERT ON events WHEN instr(NEW.body, '"digest"') > 0
  BEGIN
    INSERT OR IGNORE INTO blob_refs (digest, task_no)
      SELECT value, NEW.task_no FROM json_tree(NEW.body) WHERE key = 'digest' AND type = 'text';
  END`;

async function sqlite(): Promise<Times> {
  const dir = mkdtempSync(join(tmpdir(), "sema-bench-refs-"));
  const path = join(dir, "sema.db");
  const store = new SqliteStore({ path });
  const [created] = await store.createTask({ created: make.created("p1") });
  await store.close();
  const db = new DatabaseSync(path);
  // No checkpoint inside a timed run (the WAL is checkpointed when the file closes).
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const { task_no: taskNo } = db.prepare("SELECT task_no FROM tasks WHERE task_id = ?").get(created?.taskId ?? "") as {
    task_no: number;
  };
  // Since schema 13 SQLite has no trigger: the store inserts the references of content parts itself
  // (write-events.ts), which the timed loop does below for today's variant.
  const insertRef = db.prepare("INSERT OR IGNORE INTO blob_refs (digest, task_no) VALUES (?, ?)");
  let storeWritesRefs = false;
  const insert = db.prepare("INSERT INTO events (task_no, seq, at, body) VALUES (?, ?, ?, ?)");
  let seq = 1000;
  const next = () => {
    seq += ROWS;
    return seq;
  };
  const time = async (body: string, from: number) => {
    const start = performance.now();
    db.exec("BEGIN");
    const digests = storeWritesRefs ? blobDigests(JSON.parse(body) as TaskEvent) : [];
    for (let i = 0; i < ROWS; i++) {
      insert.run(taskNo, from + i, "2026-12-01T00:00:00.000Z", body);
      for (const digest of digests) insertRef.run(digest, taskNo);
    }
    db.exec("COMMIT");
    return performance.now() - start;
  };
  const use = async (variant: 0 | 1 | 2) => {
    db.exec("DROP TRIGGER IF EXISTS events_blob_refs");
    if (variant === 1) db.exec(SQLITE_BEFORE);
    storeWritesRefs = variant === 2;
  };
  const results: Times = new Map();
  for (const [kind, event] of Object.entries(kinds))
    results.set(kind, await perRow(time, use, JSON.stringify(event), next));
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return results;
}

/** PostgreSQL schema 11's trigger, as it was, beside today's (disabled while the other runs). */
const postgresBefore = (s: string) => `
  CREATE FUNCTION ${s}.events_blob_refs_before() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO ${s}.blob_refs (digest, task_no)
      SELECT DISTINCT d #>> '{}', NEW.task_no FROM jsonb_path_query(NEW.body::jsonb, 'lax $.**.digest') AS d
      WHERE jsonb_typeof(d) = 'string'
      ON CONFLICT DO NOTHING;
    RETURN NULL;
  END $$;
  CREATE TRIGGER events_blob_refs_before AFTER INSERT ON ${s}.events FOR EACH ROW
    WHEN (strpos(NEW.body, '"digest"') > 0) EXECUTE FUNCTION ${s}.events_blob_refs_before();`;

async function postgres(): Promise<Times> {
  const schema = `sema_bench_refs_${process.pid}`;
  const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
  const [created] = await store.createTask({ created: make.created("p1") });
  await store.close();
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  const s = `"${schema}"`;
  try {
    const { rows } = await client.query<{ task_no: string }>(`SELECT task_no FROM ${s}.tasks WHERE task_id = $1`, [
      created?.taskId,
    ]);
    const taskNo = rows[0]?.task_no;
    await client.query(postgresBefore(s));
    let seq = 1000;
    const next = () => {
      seq += ROWS;
      return seq;
    };
    const time = async (body: string, from: number) => {
      const start = performance.now();
      await client.query(
        `INSERT INTO ${s}.events (task_no, seq, at, body)
         SELECT $1, g, '2026-12-01T00:00:00.000Z', $2 FROM generate_series($3::integer, $4::integer) g`,
        [taskNo, body, from, from + ROWS - 1],
      );
      return performance.now() - start;
    };
    const use = async (variant: 0 | 1 | 2) => {
      const on = [undefined, "events_blob_refs_before", "events_blob_refs"][variant];
      for (const name of ["events_blob_refs", "events_blob_refs_before"]) {
        await client.query(`ALTER TABLE ${s}.events ${name === on ? "ENABLE" : "DISABLE"} TRIGGER ${name}`);
      }
    };
    const results: Times = new Map();
    for (const [kind, event] of Object.entries(kinds))
      results.set(kind, await perRow(time, use, JSON.stringify(event), next));
    return results;
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await client.end();
  }
}

const lines = [
  `${ROWS} rows a run, median of ${REPEAT}; µs a row (trigger: less the row time without one)`,
  "| store | event | no trigger | before | today | trigger before | trigger today |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
];
for (const [store, results] of [
  ["SQLite", await sqlite()],
  ["PostgreSQL", await postgres()],
] as const) {
  for (const [kind, [none, before, today]] of results) {
    const cells = [none, before, today, before - none, today - none].map((n) => n.toFixed(2));
    lines.push(`| ${store} | ${kind} | ${cells.join(" | ")} |`);
  }
}
console.log(lines.join("\n"));
