/**
 * The fixed cost of a 1-turn task (issue 21): `startTask` + one `runLeg` with a scripted model,
 * without a tool and with one tool call, on MemoryStore, SqliteStore (file) and PostgresStore,
 * counting what a task costs the store rather than timing it — events appended, store calls by
 * method, and SQL statements executed (node:sqlite `exec` and statement runs, pg `query`) — so the
 * figures are the same on a loaded machine. Each store is opened in a young process, runs one
 * task (its first, which prepares what is prepared lazily) and then `--tasks - 1` more: the
 * table shows the first and the median of the rest.
 *
 * `npm run bench:fixed-cost [-- --tasks 5 --only memory,sqlite,postgres --statements]`
 * (`--statements` also lists the SQL of a task's statements, grouped by text; `--save` writes
 * bench/results/fixed-cost/<date>-<commit>.json.)
 * PostgreSQL: SEMA_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test, in a fresh schema
 * dropped after the run.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as NodeSqlite from "node:sqlite";
import { parseArgs } from "node:util";
import { MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { lookupTool, ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { SqliteStore } from "@sema-agent/sqlite";
import pg from "pg";
import { describeMachine, formatMachine, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const POSTGRES_URL = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** What one task cost: store calls by method, events appended, SQL statements by text. */
interface Tally {
  calls: Map<string, number>;
  events: number;
  statements: Map<string, number>;
}

function emptyTally(): Tally {
  return { calls: new Map(), events: 0, statements: new Map() };
}

let current = emptyTally();

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** One line of SQL, whitespace folded, for grouping. */
function sqlKey(sql: string): string {
  return sql.replace(/\s+/g, " ").trim().slice(0, 110);
}

/** Count every statement node:sqlite runs: `exec`, and every run of a prepared statement. */
function countSqlite(): void {
  const sqlite = process.getBuiltinModule("node:sqlite") as typeof NodeSqlite;
  const database = sqlite.DatabaseSync.prototype;
  const exec = database.exec;
  database.exec = function (this: NodeSqlite.DatabaseSync, sql: string) {
    bump(current.statements, sqlKey(sql));
    return exec.call(this, sql);
  };
  const statement = sqlite.StatementSync.prototype as unknown as Record<string, unknown>;
  for (const name of ["run", "get", "all", "iterate"] as const) {
    const original = statement[name] as (...args: unknown[]) => unknown;
    statement[name] = function (this: NodeSqlite.StatementSync, ...args: unknown[]) {
      bump(current.statements, sqlKey(this.sourceSQL));
      return original.apply(this, args);
    };
  }
}

/** Count every query a pg client sends (a pool's queries go through its clients). */
function countPostgres(): void {
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args;
    const text =
      typeof first === "string"
        ? first
        : typeof first === "object" && first !== null && "text" in first
          ? String((first as { text: unknown }).text)
          : "?";
    bump(current.statements, sqlKey(text));
    return query.apply(this, args);
  };
}

/** `store`, with every method call counted (and the events `append`/`createTask` wrote). */
function counted(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        bump(current.calls, property);
        const result: unknown = Reflect.apply(value, target, args);
        if ((property === "append" || property === "createTask") && result instanceof Promise)
          return result.then((stored: unknown) => {
            if (Array.isArray(stored)) current.events += stored.length;
            return stored;
          });
        return result;
      };
    },
  });
}

/** The two workloads: a 1-turn task, and one whose first turn calls a tool. */
const WORKLOADS: { name: string; turns: () => ScriptedTurn[] }[] = [
  { name: "1 turn, no tool", turns: () => [{ text: "Done." }] },
  {
    name: "1 tool call + answer",
    turns: () => [{ text: "Checking.", toolCalls: [{ name: "lookup", input: { key: "k" } }] }, { text: "Done." }],
  },
];

async function oneTask(store: Store, turns: ScriptedTurn[]): Promise<Tally> {
  current = emptyTally();
  const taskId = await startTask(store, { objective: "Look it up." });
  const model = new ScriptedModel(turns, { recordRequests: false });
  const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
  const tally = current;
  current = emptyTally();
  return tally;
}

interface Subject {
  name: string;
  open(): Promise<{ store: Store; close(): Promise<void> }>;
}

const SUBJECTS: Record<string, Subject> = {
  memory: {
    name: "MemoryStore",
    async open() {
      const store = new MemoryStore();
      return { store, close: () => store.close() };
    },
  },
  sqlite: {
    name: "SqliteStore (file)",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "sema-fixed-cost-"));
      const store = new SqliteStore({ path: join(dir, "sema.db") });
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
    async open() {
      const schema = `sema_fixed_cost_${randomBytes(5).toString("hex")}`;
      const store = new PostgresStore({ connectionString: POSTGRES_URL, schema });
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

function total(map: Map<string, number>): number {
  let sum = 0;
  for (const value of map.values()) sum += value;
  return sum;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

function callsLine(calls: Map<string, number>): string {
  return [...calls.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tasks: { type: "string", default: "5" },
      only: { type: "string", default: "memory,sqlite,postgres" },
      statements: { type: "boolean", default: false },
      save: { type: "boolean", default: false },
    },
  });
  const tasks = Math.max(2, Number.parseInt(values.tasks, 10));
  const only = values.only.split(",").map((name) => name.trim());
  countSqlite();
  countPostgres();
  const machine = describeMachine();
  console.log(formatMachine(machine));
  console.log(
    `\n${tasks} tasks per store and workload; "first" is the store's first task, "then" the median of the rest.\n`,
  );
  const rows: string[][] = [];
  const results: (ResultRow & { workload: string })[] = [];
  const details: string[] = [];
  for (const key of only) {
    const subject = SUBJECTS[key];
    if (subject === undefined) throw new Error(`unknown store ${key} (memory, sqlite, postgres)`);
    for (const workload of WORKLOADS) {
      current = emptyTally();
      const { store, close } = await subject.open();
      const opened = total(current.statements);
      const tallies: Tally[] = [];
      try {
        for (let i = 0; i < tasks; i++) tallies.push(await oneTask(counted(store), workload.turns()));
      } finally {
        await close();
      }
      const [first, ...rest] = tallies;
      if (first === undefined) continue;
      const last = rest.at(-1) ?? first;
      rows.push([
        subject.name,
        workload.name,
        String(first.events),
        `${total(first.calls)} / ${median(rest.map((t) => total(t.calls)))}`,
        key === "memory" ? "–" : `${total(first.statements)} / ${median(rest.map((t) => total(t.statements)))}`,
        key === "memory" ? "–" : String(opened),
      ]);
      const later = rest.length === 0 ? [first] : rest;
      const result = (metric: string, unit: string, samples: number[]) =>
        results.push({ subject: subject.name, workload: workload.name, metric, unit, samples });
      result(
        "events",
        "events",
        later.map((t) => t.events),
      );
      result(
        "store calls",
        "calls",
        later.map((t) => total(t.calls)),
      );
      result(
        "appends",
        "calls",
        later.map((t) => t.calls.get("append") ?? 0),
      );
      if (key !== "memory") {
        result(
          "SQL statements",
          "statements",
          later.map((t) => total(t.statements)),
        );
        result("SQL statements, first task", "statements", [total(first.statements)]);
        result("SQL at open", "statements", [opened]);
      }
      details.push(`${subject.name}, ${workload.name}: ${callsLine(last.calls)}`);
      if (values.statements && key !== "memory") {
        details.push(`  statements of a later task (count × SQL):`);
        for (const [sql, n] of [...last.statements.entries()].sort(([, a], [, b]) => b - a))
          details.push(`    ${n} × ${sql}`);
      }
    }
  }
  const header = [
    "store",
    "task",
    "events",
    "store calls (first / then)",
    "SQL statements (first / then)",
    "SQL at open",
  ];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log([line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n"));
  console.log(`\nstore calls of a later task, by method:\n${details.join("\n")}`);
  saveIfAsked("fixed-cost", machine, results);
}

await main();
