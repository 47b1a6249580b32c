/**
 * For the tests of `sema fork`, `replay`, `diff`, `export` and `import`: a working directory with a
 * file to read and scripted models (offline), `sema` run in process (main() with captured
 * streams), and a task recorded by `sema run` on a real store.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";
import { expect, onTestFinished } from "vitest";
import type { CliIo } from "../context.ts";
import { main } from "../main.ts";

/** What a command printed, and its exit code. */
export interface Ran {
  code: number;
  out: string;
  err: string;
}

/** Run `sema <args>` in `cwd`; `extra` sets the rest of the io (stdin, a TTY). */
export async function sema(cwd: string, args: string[], extra: Partial<CliIo> = {}): Promise<Ran> {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t), isTTY: false },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    cwd,
    ...extra,
  };
  const code = await main(args, io);
  return { code, out, err };
}

/** One scripted turn, as a script file holds it. */
export type Turn = { text?: string; toolCalls?: { name: string; input: unknown }[] };

/** A temporary working directory (removed after the test) with `notes.txt` and a SQLite file's path. */
export interface Workspace {
  dir: string;
  db: string;
  /** A script file of `turns`; its `script:` spec. */
  script(turns: Turn[]): string;
}

export function workspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), "sema-time-travel-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "notes.txt"), "TODO: one\nTODO: two\n");
  let scripts = 0;
  return {
    dir,
    db: join(dir, "test.db"),
    script(turns) {
      const path = join(dir, `script-${++scripts}.json`);
      writeFileSync(path, JSON.stringify({ turns }));
      return `script:${path}`;
    },
  };
}

/** Reads the file, then answers: what the trip of every test starts with. */
export const READ_THEN_ANSWER: Turn[] = [
  { text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
  { text: "Two TODOs." },
];

/** `sema run objective` on `model` with `store` flags; the task's id (the run must complete). */
export async function recordRun(
  cwd: string,
  objective: string,
  model: string,
  store: string[],
  flags: string[] = [],
): Promise<string> {
  const ran = await sema(cwd, ["run", objective, "--model", model, ...store, ...flags]);
  expect(ran.err).toBe("");
  expect(ran.code).toBe(0);
  const taskId = /Task (\S+) started/.exec(ran.out)?.[1];
  if (taskId === undefined) throw new Error(`no task started: ${ran.out}`);
  return taskId;
}

/** A SQLite file's store for `work`, closed after it. */
export async function withSqlite<T>(path: string, work: (store: SqliteStore) => Promise<T>): Promise<T> {
  const store = new SqliteStore({ path });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A stored event without its stamps, as a store's `createTask` takes it. */
export function unstamped(event: StoredEvent): TaskEvent {
  const { taskId: _taskId, seq: _seq, at: _at, ...rest } = event;
  return rest as TaskEvent;
}

/** A copy of `taskId`'s log as a new task in the same SQLite file, each event passed through `edit`; its id. */
export async function copyTask(
  db: string,
  taskId: string,
  edit: (event: TaskEvent) => TaskEvent = (event) => event,
): Promise<string> {
  return withSqlite(db, async (store) => {
    const [created, ...more] = (await store.read(taskId)).map((event) => edit(unstamped(event)));
    if (created?.type !== "task_created") throw new Error(`task ${taskId} has no task_created`);
    const [first] = await store.createTask({ created, more });
    if (first === undefined) throw new Error("createTask wrote nothing");
    return first.taskId;
  });
}

/** An export file with `edit` applied to its lines (all but the end line) and the end line's SHA-256 made to match again. */
export function resealed(file: string, edit: (lines: string[]) => string[]): string {
  const lines = file.trimEnd().split("\n");
  const body = edit(lines.slice(0, -1))
    .map((line) => `${line}\n`)
    .join("");
  const end = JSON.parse(lines.at(-1) ?? "") as Record<string, unknown>;
  end.sha256 = createHash("sha256").update(body).digest("hex");
  // The end line holds numbers and a string only: sorted keys make it canonical JSON.
  return `${body}${JSON.stringify(Object.fromEntries(Object.entries(end).sort(([a], [b]) => (a < b ? -1 : 1))))}\n`;
}
