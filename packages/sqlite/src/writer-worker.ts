/**
 * The writer thread of a `SqliteStore` with `writer: "thread"` (started by `thread-writer.ts`): it
 * owns the store's write connection and runs the group-commit batches (`BatchWriter`, one
 * savepoint per write) of the commands the main thread posts, answering each transaction's writes
 * in one message after its COMMIT. It also watches for other connections' commits (see `#poll`).
 */
import { parentPort, workerData } from "node:worker_threads";
import { SummaryCache } from "@sema-agent/core/store-kit";
import { BatchWriter } from "./batch-writer.ts";
import { CommitPoller } from "./commit-poller.ts";
import { openDatabase, storeError } from "./connection.ts";
import type { DatabaseSync } from "./node-sqlite.ts";
import { rollback } from "./schema.ts";
import type { Statements } from "./statements.ts";
import { toWire } from "./thread-errors.ts";
import type { FromWriter, ToWriter, WriteAnswer, WriterThreadData } from "./thread-messages.ts";
import { UsageCounters } from "./usage-counters.ts";
import { runWrite, taskOfCommand, type WriteContext } from "./write-commands.ts";

const port = parentPort;
if (port === null) throw new Error("writer-worker.ts runs as a worker thread of SqliteStore");
const data = workerData as WriterThreadData;
const post = (message: FromWriter) => port.postMessage(message);

let db: DatabaseSync | undefined;
let sql: Statements | undefined;
let context: WriteContext | undefined;
try {
  const opened = openDatabase(data.path, data.busyTimeoutMs, Date.now);
  db = opened.db;
  sql = opened.statements;
  if (data.maxEventBytes !== undefined) sql.maxEventBytes = data.maxEventBytes;
  context = { usage: new UsageCounters(opened.db), summaries: new SummaryCache("SQLite") };
} catch (error) {
  db?.close();
  post({ type: "failed", error: toWire(storeError(data.path, error)) });
  // Nothing to do without a connection: the thread ends, and the store fails every write.
  port.close();
}

let answers: WriteAnswer[] = [];
const writer = new BatchWriter(
  {
    statements: () => sql as Statements,
    rollback: () => {
      if (db !== undefined) rollback(db);
    },
    storeError: (error) => storeError(data.path, error),
    afterBatch: () => {
      if (answers.length === 0) return;
      post({ type: "done", answers, commits: writer.commits, longestMs: writer.longestMs });
      answers = [];
    },
  },
  // Group commit off: every write is a transaction of its own (a batch of one).
  data.groupCommit ?? { windowMs: 0, maxBatch: 1 },
  data.timeBatches ? () => performance.now() : () => 0,
);

/**
 * Other connections' commits. `PRAGMA data_version` on this connection changes only when another
 * connection commits — never for this thread's own commits, which are every commit the store
 * makes — so a change is always news for the watchers (on the main thread's read connection it
 * would change at every commit of this thread and wake every watcher). The baseline is kept
 * between polls instead of reset at their start: the main thread's watcher armed before its read,
 * and a commit landing between that read and this thread hearing of the watcher must still wake it
 * (at worst a wake with nothing new: one empty read).
 */
let dataVersion: number | undefined;
const poller = new CommitPoller({
  pollMs: data.pollMs,
  catchUp: true,
  changed: () => {
    const row = (sql as Statements).dataVersion.get() as { data_version: number } | undefined;
    const version = row?.data_version ?? 0;
    const changed = dataVersion !== undefined && version !== dataVersion;
    dataVersion = version;
    return changed;
  },
  wake: () => post({ type: "foreign" }),
});
// The baseline: the store opened its read connection before this one, so nothing before is news.
if (sql !== undefined) poller.check();
let release: (() => void) | undefined;

port.on("message", (message: ToWriter) => {
  switch (message.type) {
    case "write":
      for (const { id, command, nowMs, lane } of message.writes) {
        if (context === undefined) continue;
        const ctx = context;
        writer.enqueue(
          (statements) => runWrite(ctx, statements, command, nowMs),
          (value, attended) => answers.push(attended ? { id, value, attended } : { id, value }),
          (error) => answers.push({ id, error: toWire(error) }),
          lane,
          taskOfCommand(command),
        );
      }
      return;
    case "poll":
      if (message.on && release === undefined && sql !== undefined) release = poller.hold();
      else if (!message.on && release !== undefined) {
        release();
        release = undefined;
      }
      return;
    case "close":
      writer.drain();
      poller.stop();
      try {
        db?.close();
      } catch {
        // Released either way (see SqliteStore.close).
      }
      db = undefined;
      sql = undefined;
      post({ type: "closed" });
      port.close();
      return;
  }
});
