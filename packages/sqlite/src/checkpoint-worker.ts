/**
 * The checkpoint thread of a `SqliteStore` (started by `checkpoint-thread.ts`): its own connection
 * to the file copies the WAL's committed pages back into the database (`PRAGMA
 * wal_checkpoint(PASSIVE)`, which never blocks a writer) whenever another connection committed
 * since its last look, so the store's commits on the main thread no longer stop for it.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { CheckpointThreadData } from "./checkpoint-thread.ts";
import { DatabaseSync } from "./node-sqlite.ts";

const port = parentPort;
if (port === null) throw new Error("checkpoint-worker.ts runs as a worker thread of SqliteStore");
const data = workerData as CheckpointThreadData;

const db = new DatabaseSync(data.path);
db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(data.busyTimeoutMs))}`);
// NORMAL, as the store's own connection: a checkpoint syncs the WAL and the database file.
db.exec("PRAGMA synchronous = NORMAL");
const dataVersion = db.prepare("PRAGMA data_version");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
let seen: number | undefined;

const timer = setInterval(() => {
  try {
    // Changes only when another connection commits: an idle store costs one cheap look per tick.
    const version = (dataVersion.get() as { data_version: number } | undefined)?.data_version;
    if (version === seen) return;
    seen = version;
    const row = checkpoint.get() as { busy: number; log: number; checkpointed: number } | undefined;
    port.postMessage({ type: "checkpointed", frames: row?.checkpointed ?? 0 });
  } catch (error) {
    // The store's own connection still checkpoints once its WAL reaches its (raised) threshold.
    port.postMessage({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
}, data.intervalMs);

port.on("message", (message: unknown) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  port.close();
});
