/**
 * For the kill tests (prune-kill, migrate-kill): run a fixture that SIGKILLs itself at a chosen
 * step in a child Node process, and look at the SQLite file it left for what a torn write would
 * leave: rows of no task, and logs that do not run 1 … last_seq.
 */
import { spawn } from "node:child_process";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";

/** How the child ended: the signal that killed it (null when it exited 0), and what it printed. */
export interface FixtureEnd {
  signal: string | null;
  out: string;
}

/**
 * Runs `fixture` (a TypeScript file, from the workspace's sources) with `args` in a child Node,
 * killed after a minute at most; rejects when it exits non-zero without a signal, with its stderr.
 */
export function runFixture(fixture: URL, args: readonly string[]): Promise<FixtureEnd> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--conditions=source", "--no-warnings", fileURLToPath(fixture), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const deadline = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    let out = "";
    let err = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code, signal) => {
      clearTimeout(deadline);
      if (signal === null && code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve({ signal, out });
    });
  });
}

/** Rows that belong to no task, and tasks whose events do not run 1 … last_seq, in `db`. */
export function tornRows(db: DatabaseSync): string[] {
  const problems: string[] = [];
  for (const table of ["events", "inputs", "snapshots", "blob_refs"]) {
    const row = db.prepare(`SELECT count(*) AS n FROM ${table} WHERE task_no NOT IN (SELECT task_no FROM tasks)`).get();
    if (row?.n !== 0) problems.push(`${table}: ${String(row?.n)} orphan rows`);
  }
  const torn = db
    .prepare(
      `SELECT t.task_id FROM tasks t LEFT JOIN events e ON e.task_no = t.task_no
        GROUP BY t.task_no HAVING count(e.seq) <> t.last_seq OR max(e.seq) <> t.last_seq`,
    )
    .all();
  for (const row of torn) problems.push(`task ${String(row.task_id)} has a torn log`);
  return problems;
}

/** `tornRows` of the SQLite file at `path`, opened and closed here. */
export function tornRowsOf(path: string): string[] {
  const db = new DatabaseSync(path);
  try {
    return tornRows(db);
  } finally {
    db.close();
  }
}
