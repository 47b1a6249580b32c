// Forks on a real SQLite file (docs/guide/time-travel.md): a fork is one createTask, however long
// the copied log, so it is written whole or not at all — when a statement of its write fails, and
// when its process is killed in the middle of it — and the source is only read.
import { spawn } from "node:child_process";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { forkTask } from "@sema-agent/core/time-travel";
import { describe, expect, it } from "vitest";
import {
  expectForksAtEverySeq,
  expectWholeFork,
  recordLongTask,
} from "../../core/src/time-travel/fork-checks.fixture.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

/** A log longer than 10,000 events: the fork's createTask carries all of them but the first. */
const LONG = 10_001;
/** The fork's event INSERTs: its 10,002 events, 32 a statement. */
const FORK_INSERTS = Math.ceil((LONG + 1) / 32);
/** Writing, forking and reading back a long log (in a child process too) takes seconds, more on a loaded machine. */
const LONG_TEST = { timeout: 120_000 };

/** Rows in the file's tables, read through a connection of its own. */
function rowCounts(path: string): { tasks: number; events: number } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const count = (table: string) => Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);
    return { tasks: count("tasks"), events: count("events") };
  } finally {
    db.close();
  }
}

/** A file holding one long task (`LONG` events); returns its path and the task's id. */
async function fileWithLongTask(): Promise<{ path: string; source: string }> {
  const path = tempDb();
  const store = new SqliteStore({ path });
  const source = await recordLongTask(store, LONG);
  await store.close();
  return { path, source };
}

describe("forks (SqliteStore file)", () => {
  it("forks a recorded task at every seq: each fork whole, the source unchanged, the forks listed", async () => {
    const store = new SqliteStore({ path: tempDb() });
    await expectForksAtEverySeq(store);
    await store.close();
  });

  for (const writer of ["main", "thread"] as const) {
    it(
      `forks a ${LONG.toLocaleString("en-US")}-event task whole, counting none of its turns again (writer ${writer})`,
      LONG_TEST,
      async () => {
        const path = tempDb();
        const store = new SqliteStore({ path, writer });
        const source = await recordLongTask(store, LONG);
        const log = await store.read(source);
        const usage = await store.usage({ principal: "acme", sinceMs: 0 });
        const fork = await forkTask(store, source);
        expect(fork.seq).toBe(LONG);
        await expectWholeFork(store, log, fork);
        expect((await store.listTasks({ principal: "acme", forkedFrom: source })).tasks.map((t) => t.taskId)).toEqual([
          fork.taskId,
        ]);
        expect(await store.usage({ principal: "acme", sinceMs: 0 })).toEqual(usage);
        expect(JSON.stringify(await store.read(source))).toBe(JSON.stringify(log));
        await store.close();
        // Durable: a new connection reads the same fork.
        const reopened = new SqliteStore({ path });
        await expectWholeFork(reopened, log, fork);
        await reopened.close();
      },
    );

    it(
      `writes nothing of a fork whose write fails half-way, and forks again after (writer ${writer})`,
      LONG_TEST,
      async () => {
        const { path, source } = await fileWithLongTask();
        const before = rowCounts(path);
        // A statement in the middle of the fork's write fails: the event at seq 5,000 of a new task.
        const db = new DatabaseSync(path);
        db.exec(`CREATE TRIGGER fail_half_way BEFORE INSERT ON events
        WHEN NEW.seq = 5000 AND NEW.task_no > 1 BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
        const store = new SqliteStore({ path, writer });
        const log = await store.read(source);
        await expect(forkTask(store, source)).rejects.toMatchObject({ code: "StoreUnavailable" });
        expect(rowCounts(path)).toEqual(before);
        expect((await store.listTasks({ principal: "acme", forkedFrom: source })).tasks).toEqual([]);
        db.exec("DROP TRIGGER fail_half_way");
        db.close();
        await expectWholeFork(store, log, await forkTask(store, source));
        expect(JSON.stringify(await store.read(source))).toBe(JSON.stringify(log));
        await store.close();
      },
    );
  }

  /** Run fork-kill.fixture.ts on `path` until it exits or is killed. */
  function forkInChild(
    path: string,
    source: string,
    killAt: number,
  ): Promise<{ signal: string | null; out: string; timedOut: boolean }> {
    const fixture = fileURLToPath(new URL("./fork-kill.fixture.ts", import.meta.url));
    return new Promise((resolve, reject) => {
      const proc = spawn(
        process.execPath,
        ["--conditions=source", "--no-warnings", fixture, path, source, `${killAt}`],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      // A child that neither ends nor dies is a failure, not a hang.
      let timedOut = false;
      const deadline = setTimeout(() => {
        timedOut = true;
        proc.kill("SIGKILL");
      }, 60_000);
      let out = "";
      let stderr = "";
      proc.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      proc.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      proc.on("error", reject);
      proc.on("exit", (code, signal) => {
        clearTimeout(deadline);
        if (signal === null && code !== 0) reject(new Error(`child exited ${code}: ${stderr}`));
        else resolve({ signal, out, timedOut });
      });
    });
  }

  // The fork's first statement, one in the middle and its last (the COMMIT not yet run).
  for (const killAt of [1, Math.ceil(FORK_INSERTS / 2), FORK_INSERTS]) {
    it(
      `leaves no trace of a fork whose process is killed at its event INSERT ${killAt} of ${FORK_INSERTS}`,
      LONG_TEST,
      async () => {
        const { path, source } = await fileWithLongTask();
        const before = rowCounts(path);
        const { signal, out, timedOut } = await forkInChild(path, source, killAt);
        // Killed by its own hook, inside the fork's write.
        expect(timedOut).toBe(false);
        expect(out).toContain("forking");
        expect(signal).toBe("SIGKILL");
        expect(rowCounts(path)).toEqual(before);
        const store = new SqliteStore({ path });
        expect((await store.listTasks({ principal: "acme", forkedFrom: source })).tasks).toEqual([]);
        await store.close();
      },
    );
  }

  it("keeps a fork whose process ran to the end (the kill points above are inside the write)", LONG_TEST, async () => {
    const { path, source } = await fileWithLongTask();
    const { signal, out } = await forkInChild(path, source, 0);
    expect(signal).toBeNull();
    expect(out).toContain("forking");
    const forkId = /^forked (\S+)$/m.exec(out)?.[1];
    const store = new SqliteStore({ path });
    expect((await store.listTasks({ principal: "acme", forkedFrom: source })).tasks.map((t) => t.taskId)).toEqual([
      forkId,
    ]);
    const log = await store.read(source);
    await expectWholeFork(store, log, { taskId: forkId ?? "", sourceTaskId: source, seq: LONG, detachedChildren: [] });
    await store.close();
  });
});
