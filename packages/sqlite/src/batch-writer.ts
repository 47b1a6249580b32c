/**
 * Group commit on one SQLite connection: the writes (appends, leases, snapshots, creations) that
 * concurrent callers make within a tick run in one `BEGIN IMMEDIATE … COMMIT`, each inside a
 * savepoint of its own, so a write that fails (a `SeqConflict`, a lost lease) is rolled back alone
 * and the others commit; a batch of one write needs no savepoint. A caller's promise settles only after the COMMIT of the transaction that
 * holds its write; a failed COMMIT fails every write of the batch with `StoreUnavailable`.
 *
 * node:sqlite is synchronous, so a batch holds the event loop while it runs: it is bounded by a
 * count (`maxBatch`) and by time (`maxBatchMs`), and what is left waits for the next tick, letting
 * timers and I/O in between.
 *
 * People first (`WorkLane`, design §7): a write in the `person` lane (a steer, a decision, a leg
 * delivering one) goes ahead of every routine write queued, into the next batch, and does not
 * wait out a wider `windowMs`. Each lane keeps its order, and while both have writes waiting
 * they take turns, one each: a stream of people's writes delays routine work by at most half the
 * writer's pace, never starves it. A person's write lifts the routine writes queued for its task
 * into the person lane ahead of it: the task's leg is blocked on them, so the person's word would
 * otherwise wait for the whole routine queue before the leg could take it up.
 */
import { type GroupCommitSettings, scheduleFlush, type WorkLane } from "@sema-agent/core/store-kit";
import { isSqliteFailure } from "./connection.ts";
import type { Statements } from "./statements.ts";

/** One caller's write: its work inside the transaction and how to tell it the outcome. */
interface Pending {
  work: (sql: Statements) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The task written, when the write is one task's: a person's write to it lifts this one. */
  task: string | undefined;
  /** Moved to the person lane by a person's write to its task; skipped where it was queued. */
  lifted: boolean;
}

/** What the writer needs from its store: the open connection's statements, and the store's error mapping. */
export interface WriterHost {
  /** The statements of the open connection; throws `StoreUnavailable` when the store is closed. */
  statements(): Statements;
  /** Roll back whatever transaction is open (a failure here must not mask the first). */
  rollback(): void;
  /** The store's typed form of a failure (SQLite failures become `StoreUnavailable`). */
  storeError(error: unknown): unknown;
  /**
   * Called once each batch has told all its writes their outcome (the writer thread sends their
   * answers then, in one message).
   */
  afterBatch?(): void;
}

/**
 * Longest a batch runs its writes before it commits and leaves the rest for the next tick, in ms.
 * A few ms keeps the longest synchronous step short at 10,000 concurrent legs (bench:live).
 */
const MAX_BATCH_MS = 4;

/** Writes coalesced into one transaction per tick; see the module comment. */
export class BatchWriter {
  readonly #host: WriterHost;
  readonly #settings: GroupCommitSettings;
  readonly #now: () => number;
  #queue: Pending[] = [];
  /** Writes in the `person` lane, taken ahead of `#queue`'s (in turns while both wait). */
  #person: Pending[] = [];
  /** The last write taken was a person's: a routine one goes next if one waits. */
  #personLast = false;
  /** The routine writes queued per task, in order, for a person's write to lift (see the module comment). */
  readonly #routineOf = new Map<string, Pending[]>();
  /** Lifted writes still in `#queue` (skipped when they reach its head). */
  #liftedInQueue = 0;
  #cancel: (() => void) | undefined;
  /** The flush is due at the end of this tick (not later in a window). */
  #soon = false;
  /** Transactions committed (for bench:live's commits per second). */
  commits = 0;
  /** The longest a batch held the event loop, BEGIN to COMMIT, in ms (by the writer's clock, ms resolution with Date.now). */
  longestMs = 0;

  constructor(host: WriterHost, settings: GroupCommitSettings, now: () => number = () => performance.now()) {
    this.#host = host;
    this.#settings = settings;
    this.#now = now;
  }

  /**
   * Run `work` in the next batch's transaction (ahead of routine writes when `lane` is `person`);
   * resolves with its result once that transaction committed.
   */
  submit<T>(work: (sql: Statements) => T, lane: WorkLane = "routine", task?: string): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.enqueue(work, resolve as (value: unknown) => void, reject, lane, task),
    );
  }

  /**
   * `submit` with callbacks instead of a promise: `resolve` or `reject` is called once, after the
   * COMMIT. `task`: the task the write is to, if one (a person's write to it lifts its routine ones).
   */
  enqueue(
    work: (sql: Statements) => unknown,
    resolve: (value: unknown) => void,
    reject: (error: unknown) => void,
    lane: WorkLane = "routine",
    task?: string,
  ): void {
    const person = lane === "person";
    const pending: Pending = { work, resolve, reject, task, lifted: false };
    if (person) {
      if (task !== undefined) this.#lift(task);
      this.#person.push(pending);
    } else {
      this.#queue.push(pending);
      if (task !== undefined) {
        const queued = this.#routineOf.get(task);
        if (queued === undefined) this.#routineOf.set(task, [pending]);
        else queued.push(pending);
      }
    }
    // A full batch, or a person's write, goes at the end of this tick, even inside a wider window.
    if ((person || this.#queued() >= this.#settings.maxBatch) && !this.#soon) this.#schedule(0);
    else if (this.#cancel === undefined) this.#schedule(this.#settings.windowMs);
  }

  /** Move `task`'s queued routine writes, in their order, to the end of the person lane. */
  #lift(task: string): void {
    const queued = this.#routineOf.get(task);
    if (queued === undefined) return;
    this.#routineOf.delete(task);
    for (const pending of queued) {
      pending.lifted = true;
      this.#liftedInQueue++;
      this.#person.push(pending);
    }
  }

  /** Writes waiting, both lanes. */
  #queued(): number {
    return this.#person.length + this.#queue.length - this.#liftedInQueue;
  }

  /** Drop lifted writes from the head of the routine queue, so its head, if any, is waiting there. */
  #routineHead(): Pending | undefined {
    let head = this.#queue[0];
    while (head?.lifted === true) {
      this.#queue.shift();
      this.#liftedInQueue--;
      head = this.#queue[0];
    }
    return head;
  }

  /** The next write to run: the person lane's first, except right after a person's while routine ones wait. */
  #next(): Pending {
    const routine = this.#routineHead() !== undefined;
    const person = this.#person.length > 0 && (!this.#personLast || !routine);
    this.#personLast = person;
    if (person) return this.#person.shift() as Pending;
    const pending = this.#queue.shift() as Pending;
    if (pending.task !== undefined) {
      // A task's routine writes leave the queue in order: this one is first in its list.
      const queued = this.#routineOf.get(pending.task);
      queued?.shift();
      if (queued?.length === 0) this.#routineOf.delete(pending.task);
    }
    return pending;
  }

  /** Every write waiting, once each, leaving the writer empty (their transaction could not begin). */
  #takeAll(): Pending[] {
    const all = [...this.#person, ...this.#queue.filter((pending) => !pending.lifted)];
    this.#person = [];
    this.#queue = [];
    this.#routineOf.clear();
    this.#liftedInQueue = 0;
    return all;
  }

  /** Commit everything queued now, in batches, without waiting for the tick (on close). */
  drain(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#soon = false;
    while (this.#queued() > 0) this.#runBatch(Number.POSITIVE_INFINITY);
  }

  #schedule(windowMs: number): void {
    this.#cancel?.();
    this.#soon = windowMs === 0;
    this.#cancel = scheduleFlush(windowMs, () => {
      this.#cancel = undefined;
      this.#soon = false;
      this.#runBatch(MAX_BATCH_MS);
      // What did not fit goes in the next tick's batch, so timers and I/O run in between.
      if (this.#queued() > 0 && this.#cancel === undefined) this.#schedule(0);
    });
  }

  /** Run one transaction of queued writes, at most `maxBatch` or for about `budgetMs`. */
  #runBatch(budgetMs: number): void {
    try {
      this.#runBatchTransaction(budgetMs);
    } finally {
      this.#host.afterBatch?.();
    }
  }

  // (Named after #runBatch: the crash fixture tells the batch's own clock reads by that name.)
  #runBatchTransaction(budgetMs: number): void {
    const started = this.#now();
    const taken: Array<{ pending: Pending; ok: boolean; value: unknown }> = [];
    let sql: Statements;
    try {
      sql = this.#host.statements();
      sql.begin.run();
    } catch (error) {
      for (const pending of this.#takeAll()) pending.reject(this.#host.storeError(error));
      return;
    }
    // A lone write needs no savepoint: its failure rolls the whole transaction back, as without
    // group commit (two statements fewer per write when legs do not overlap). node:sqlite is
    // synchronous, so nothing can join the queue while this batch runs.
    if (this.#queued() === 1) {
      this.#runAlone(sql, this.#next(), started);
      return;
    }
    try {
      while (this.#queued() > 0 && taken.length < this.#settings.maxBatch) {
        const entry = { pending: this.#next(), ok: false, value: undefined as unknown };
        taken.push(entry);
        sql.savepoint.run();
        try {
          entry.value = entry.pending.work(sql);
          sql.releaseSavepoint.run();
          entry.ok = true;
        } catch (error) {
          // Only this write is undone; if the transaction itself is gone, the whole batch fails.
          sql.rollbackToSavepoint.run();
          sql.releaseSavepoint.run();
          entry.value = isSqliteFailure(error) ? this.#host.storeError(error) : error;
        }
        if (this.#now() - started >= budgetMs) break;
      }
      sql.commit.run();
      this.commits++;
      this.longestMs = Math.max(this.longestMs, this.#now() - started);
    } catch (error) {
      this.#host.rollback();
      const failure = this.#host.storeError(error);
      for (const { pending } of taken) pending.reject(failure);
      return;
    }
    for (const { pending, ok, value } of taken) {
      if (ok) pending.resolve(value);
      else pending.reject(value);
    }
  }

  /** The one queued write in the transaction just begun, committed, or rolled back when it fails. */
  #runAlone(sql: Statements, pending: Pending, started: number): void {
    let value: unknown;
    try {
      value = pending.work(sql);
    } catch (error) {
      this.#host.rollback();
      pending.reject(isSqliteFailure(error) ? this.#host.storeError(error) : error);
      return;
    }
    try {
      sql.commit.run();
    } catch (error) {
      this.#host.rollback();
      pending.reject(this.#host.storeError(error));
      return;
    }
    this.commits++;
    this.longestMs = Math.max(this.longestMs, this.#now() - started);
    pending.resolve(value);
  }
}
