/**
 * Background checkpoints for a `SqliteStore` writing on the main thread. In WAL mode a commit that
 * takes the log past `wal_autocheckpoint` pages (default 1,000) copies them back into the database
 * inside the COMMIT, with a sync: at 10,000 live legs one commit in a hundred did, 9-30 ms each,
 * about 1.9 s of a 15 s run with the event loop held. A thread of the store's own
 * (`checkpoint-worker.ts`) checkpoints instead, and the store's connection keeps a raised
 * threshold as a fallback, so the log stays bounded if the thread falls behind or dies.
 */
import { Worker } from "node:worker_threads";
import type { DatabaseSync } from "./node-sqlite.ts";
import { workerScript } from "./worker-script.ts";

/** What the checkpoint thread is started with. */
export interface CheckpointThreadData {
  path: string;
  busyTimeoutMs: number;
  /** How often the thread looks for commits to checkpoint. */
  intervalMs: number;
}

/** How often the checkpoint thread looks: about one inline checkpoint's worth of log at 10,000 legs. */
export const CHECKPOINT_EVERY_MS = 50;

/**
 * The store's own connection's `wal_autocheckpoint` while the thread runs: ten times SQLite's
 * default, so it checkpoints inline only if the thread falls far behind (about 40 MB of log).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/** The checkpoint thread of one store; see the module comment. */
export class CheckpointThread {
  readonly #worker: Worker;
  #exited = false;
  /** WAL frames the thread reported checkpointed, over all its checkpoints. */
  frames = 0;
  /** Checkpoints the thread ran. */
  checkpoints = 0;

  /** Start the thread; `died` is told if it ends before `stop` (the store then checkpoints inline). */
  constructor(data: CheckpointThreadData, died: () => void, script?: URL) {
    const { url, execArgv } = workerScript("checkpoint-worker");
    this.#worker = new Worker(script ?? url, { workerData: data, execArgv });
    this.#worker.on("message", (message: { type: string; frames?: number }) => {
      if (message.type !== "checkpointed") return;
      this.checkpoints++;
      this.frames += message.frames ?? 0;
    });
    // An error ends the thread: its exit follows.
    this.#worker.on("error", () => undefined);
    this.#worker.on("exit", () => {
      if (!this.#exited) died();
      this.#exited = true;
    });
    // Never what keeps a process alive: an idle store holds nothing open (as without the thread).
    this.#worker.unref();
  }

  /** Stop the thread and wait until its connection is closed. */
  async stop(): Promise<void> {
    if (this.#exited) return;
    this.#exited = true;
    const exited = new Promise<void>((resolve) => this.#worker.once("exit", () => resolve()));
    // Waiting for it keeps the process alive: a script's last `await store.close()` must not
    // find the event loop empty (Node ends such a process with exit code 13).
    this.#worker.ref();
    this.#worker.postMessage("stop");
    await exited;
  }
}

/** SQLite's own `wal_autocheckpoint`, for a connection that checkpoints inline again. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/**
 * Start the checkpoint thread of the store whose connection is `db`, and raise that connection's
 * threshold to the fallback; if the thread dies, the connection goes back to SQLite's default.
 * `undefined` when the thread cannot start: the connection keeps checkpointing inline, and the
 * write that was due goes in as usual (a thread costs the store its speed-up, never a write).
 */
export function startCheckpointThread(
  db: DatabaseSync,
  data: Omit<CheckpointThreadData, "intervalMs">,
  open: () => boolean,
): CheckpointThread | undefined {
  let thread: CheckpointThread;
  try {
    thread = new CheckpointThread({ ...data, intervalMs: CHECKPOINT_EVERY_MS }, () => {
      if (open()) db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    });
  } catch {
    return undefined;
  }
  db.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  return thread;
}
