/**
 * The main thread's side of `writer: "thread"`: a `node:worker_threads` Worker (`writer-worker.ts`)
 * owns the store's write connection and runs the group commits, so SQLite's synchronous work —
 * statements, COMMIT, the WAL checkpoints inside it — no longer holds the main thread's event loop.
 * The writes of one tick go to the thread in one message; a caller's promise settles when the
 * thread reports the COMMIT that holds its write (or the error that refused it, rebuilt here as
 * the same typed error). A thread that dies fails every pending and later write with
 * `StoreUnavailable`, never leaves one hanging.
 */
import { Worker } from "node:worker_threads";
import { StoreUnavailableError } from "@sema-agent/core/protocol";
import { scheduleFlush, type WriteLane } from "@sema-agent/core/store-kit";
import { fromWire } from "./thread-errors.ts";
import type { FromWriter, ToWriter, WriteAnswer, WriteRequest, WriterThreadData } from "./thread-messages.ts";
import { workerScript } from "./worker-script.ts";
import type { WriteCommand, WriteResult } from "./write-commands.ts";

/** What the store tells its writer thread, and what it hears back besides the answers. */
export interface ThreadWriterOptions extends WriterThreadData {
  /** The store's clock: each write runs at the time it is posted to the thread. */
  now: () => number;
  /** Another connection committed (see the thread's poller). */
  foreignCommit(): void;
  /** The thread died: writes fail from now on. */
  died(): void;
  /** The worker's module, for tests (default: `writer-worker` beside this module). */
  script?: URL;
}

interface Waiting {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Callers told of their writes' outcome per tick at most: at 10,000 live tasks, 64 kept the lag's
 * p99 and max at or below the main-thread writer's, 256 did not (bench/README.md).
 */
const DELIVER_AT_ONCE = 64;

/** Writes through the store's writer thread; see the module comment. */
export class ThreadWriter {
  readonly #options: ThreadWriterOptions;
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 0;
  #outbox: WriteRequest[] = [];
  /** Answers received, not yet told to their callers (see `#deliver`). */
  #inbox: WriteAnswer[] = [];
  #cancelDelivery: (() => void) | undefined;
  #cancelFlush: (() => void) | undefined;
  /** A post of the outbox is due once the current task's microtasks ran (an attended write is in it). */
  #attendedSoon = false;
  #watchers = 0;
  #polling = false;
  #referenced = true;
  /** Why writes fail, once the thread is gone. */
  #death: { message: string; cause?: unknown } | undefined;
  #closing: Promise<void> | undefined;
  /** Resolves `close`'s wait for the thread's `closed` (or its death); undefined once it came. */
  #closed: (() => void) | undefined;
  /** Transactions the thread committed. */
  commits = 0;
  /** The longest a batch ran on the thread, BEGIN to COMMIT, in ms (the thread's clock). */
  longestMs = 0;

  constructor(options: ThreadWriterOptions) {
    this.#options = options;
    const { url: defaultUrl, execArgv } = workerScript("writer-worker");
    const url = options.script ?? defaultUrl;
    const workerData: WriterThreadData = {
      path: options.path,
      busyTimeoutMs: options.busyTimeoutMs,
      groupCommit: options.groupCommit,
      pollMs: options.pollMs,
      timeBatches: options.timeBatches,
      ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
    };
    this.#worker = new Worker(url, { workerData, execArgv });
    this.#worker.on("message", (message: FromWriter) => this.#receive(message));
    this.#worker.on("error", (error) =>
      this.#die({ message: `its writer thread failed: ${error.message}`, cause: error }),
    );
    this.#worker.on("exit", (code) => this.#die({ message: `its writer thread exited (code ${code})` }));
    // An answer that cannot be read back would leave its callers waiting: the thread is of no use.
    this.#worker.on("messageerror", (error) =>
      this.#die({ message: `an answer of its writer thread could not be read: ${error.message}`, cause: error }),
    );
    // An idle store does not keep the process alive (as with the main-thread writer); a pending
    // write, a watch or a close does.
    this.#reference();
  }

  /**
   * Run `command` on the thread (in its `lane`, see `BatchWriter`); resolves with its result once
   * the transaction holding it committed.
   */
  submit<C extends WriteCommand>(command: C, lane: WriteLane = "routine"): Promise<WriteResult<C>> {
    if (this.#death !== undefined || this.#closing !== undefined) return Promise.reject(this.#unavailable());
    return new Promise<WriteResult<C>>((resolve, reject) => {
      const id = this.#nextId++;
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      // The time is set when the tick's writes are posted, as the main-thread writer reads it in its batch.
      this.#outbox.push(lane === "routine" ? { id, command, nowMs: 0 } : { id, command, nowMs: 0, lane });
      // An attended write goes to the thread once this task's microtasks ran, not at the end of the
      // tick (the thread commits it in a batch of its own, see `BatchWriter`).
      if (lane === "attended" && !this.#attendedSoon) {
        this.#attendedSoon = true;
        queueMicrotask(() => {
          this.#attendedSoon = false;
          this.#flush();
        });
      }
      if (this.#cancelFlush === undefined) this.#cancelFlush = scheduleFlush(0, () => this.#flush());
      this.#reference();
    });
  }

  /** Whether the thread is gone (it failed, exited, or never opened its connection). */
  get dead(): boolean {
    return this.#death !== undefined;
  }

  /**
   * Have the thread watch for other connections' commits until the returned function is called
   * (once per waiter): it polls while anything holds it, and `foreignCommit` reports what it sees.
   */
  hold(): () => void {
    if (this.#watchers++ === 0) this.#poll(true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#watchers === 0) this.#poll(false);
    };
  }

  #poll(on: boolean): void {
    if (on === this.#polling || this.#death !== undefined || this.#closing !== undefined) return;
    this.#polling = on;
    this.#post({ type: "poll", on });
    this.#reference();
  }

  /** Commit what is queued, then end the thread. */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#flush();
    const closed = new Promise<void>((resolve) => {
      this.#closed = resolve;
    });
    this.#closing = (async () => {
      if (this.#death === undefined) {
        this.#post({ type: "close" });
        this.#reference();
        await closed;
      }
      await this.#worker.terminate();
    })();
    return this.#closing;
  }

  #flush(): void {
    this.#cancelFlush?.();
    this.#cancelFlush = undefined;
    if (this.#outbox.length === 0) return;
    const writes = this.#outbox;
    this.#outbox = [];
    const now = this.#options.now;
    for (const write of writes) write.nowMs = now();
    this.#post({ type: "write", writes });
  }

  #post(message: ToWriter): void {
    try {
      this.#worker.postMessage(message);
    } catch (error) {
      if (message.type !== "write") throw error;
      // A write that cannot be cloned (a holder with a function in it …) fails alone, not the
      // tick's others: they go one by one.
      for (const write of message.writes) {
        try {
          this.#worker.postMessage({ type: "write", writes: [write] } satisfies ToWriter);
        } catch (refused) {
          this.#settle(write.id)?.reject(refused);
        }
      }
      this.#reference();
    }
  }

  #receive(message: FromWriter): void {
    switch (message.type) {
      case "done":
        this.commits = message.commits;
        this.longestMs = message.longestMs;
        for (const answer of message.answers) {
          // A person waits on an attended write: told now, not behind the answers queued.
          if ("attended" in answer) this.#tell([answer]);
          else this.#inbox.push(answer);
        }
        if (this.#inbox.length > 0 && this.#cancelDelivery === undefined)
          this.#cancelDelivery = scheduleFlush(0, () => this.#deliver());
        return;
      case "foreign":
        this.#options.foreignCommit();
        return;
      case "failed": {
        const error = fromWire(message.error);
        this.#die({ message: `its writer thread could not open it: ${error.message}`, cause: error });
        return;
      }
      case "closed":
        this.#deliverAll();
        this.#closedNow();
        return;
    }
  }

  /**
   * Tell the callers of the answers received, at most `DELIVER_AT_ONCE` a tick. Node hands a
   * worker's queued messages over in one go, and each caller told runs on (its leg's next step)
   * before the event loop moves: without a bound, a busy thread's answers would hold the loop for
   * as long as all their callers' work takes, as one batch of the main-thread writer never does.
   */
  #deliver(): void {
    this.#cancelDelivery = undefined;
    this.#tell(this.#inbox.splice(0, DELIVER_AT_ONCE));
    if (this.#inbox.length > 0) this.#cancelDelivery = scheduleFlush(0, () => this.#deliver());
    this.#reference();
  }

  #deliverAll(): void {
    this.#cancelDelivery?.();
    this.#cancelDelivery = undefined;
    this.#tell(this.#inbox.splice(0));
  }

  #tell(answers: readonly WriteAnswer[]): void {
    for (const answer of answers) {
      const waiting = this.#settle(answer.id);
      if ("error" in answer) waiting?.reject(fromWire(answer.error));
      else waiting?.resolve(answer.value);
    }
  }

  #settle(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    return waiting;
  }

  #unavailable(): StoreUnavailableError {
    const death = this.#death;
    if (death === undefined) return new StoreUnavailableError(`the SQLite store ${this.#options.path} is closed`);
    return new StoreUnavailableError(`SQLite store ${this.#options.path}: ${death.message}`, death.cause);
  }

  #die(death: { message: string; cause?: unknown }): void {
    if (this.#death !== undefined) return;
    // Answers already here were committed: their callers hear so, not of the death.
    this.#deliverAll();
    this.#death = death;
    // Gone already (it exited), or of no use (its answers unreadable): either way it ends.
    this.#worker.terminate().catch(() => undefined);
    this.#cancelFlush?.();
    this.#cancelFlush = undefined;
    this.#outbox = [];
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    // Closing and the thread gone (it exits once closed): nothing is left to wait for.
    this.#closedNow();
    this.#reference();
    if (this.#closing !== undefined && waiting.length === 0) return;
    for (const { reject } of waiting) reject(this.#unavailable());
    this.#options.died();
  }

  #closedNow(): void {
    const closed = this.#closed;
    this.#closed = undefined;
    closed?.();
    this.#reference();
  }

  /** Keep the process alive exactly while something waits on the thread. */
  #reference(): void {
    const wanted = this.#death === undefined && (this.#waiting.size > 0 || this.#polling || this.#closed !== undefined);
    if (wanted === this.#referenced) return;
    this.#referenced = wanted;
    if (wanted) this.#worker.ref();
    else this.#worker.unref();
  }
}
