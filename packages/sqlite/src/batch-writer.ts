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
 * People first (`WriteLane`, design §7): a write in the `person` lane (a new task's first step, a
 * leg a person waits for) goes ahead of every routine write queued, into the next batch, and does
 * not wait out a wider `windowMs`; while both lanes have writes waiting they take turns, one each,
 * so a stream of them delays routine work by at most half the writer's pace, never starves it. An
 * `attended` write (one carrying a person's own event: their steer, interrupt or decision, or a
 * leg applying it) goes before both, always: such writes come at a person's pace, and a burst of
 * new tasks' first steps must not hold them up. Each lane keeps its order. A write lifts the
 * writes queued for its task in lower lanes into its own, just ahead of it: the task's leg is
 * blocked on them, so the person's word would otherwise wait for the whole routine queue before
 * the leg could take it up.
 */
import { type GroupCommitSettings, scheduleFlush, type WriteLane } from "@sema-agent/core/store-kit";
import { isSqliteFailure } from "./connection.ts";
import type { Statements } from "./statements.ts";

/** One caller's write: its work inside the transaction and how to tell it the outcome. */
interface Pending {
  work: (sql: Statements) => unknown;
  /** `attended`: it committed in the attended lane (lifted there or not). */
  resolve: (value: unknown, attended: boolean) => void;
  reject: (error: unknown) => void;
  /** The task written, when the write is one task's: a write to it in a higher lane lifts this one. */
  task: string | undefined;
  /**
   * The lane it waits in now (`RANK`): a lift raises it, and its slot in the lower lane is then
   * skipped. Its one slot whose lane matches is removed when it is taken, so none is left to skip.
   */
  rank: number;
}

/** A lane's index in the writer's queues: lower goes first. */
const ATTENDED = 0;
const PERSON = 1;
const ROUTINE = 2;
const RANK: Readonly<Record<WriteLane, number>> = { attended: ATTENDED, person: PERSON, routine: ROUTINE };

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
  /** Writes waiting per lane (`RANK`); a slot whose write was lifted to a higher lane is skipped. */
  readonly #lanes: [Pending[], Pending[], Pending[]] = [[], [], []];
  /** Writes waiting, all lanes, each counted once. */
  #waiting = 0;
  /** The last write taken from the person or routine lane was a person's: a routine one goes next if one waits. */
  #personLast = false;
  /** The writes waiting per task, in order of arrival, for a write in a higher lane to lift. */
  readonly #ofTask = new Map<string, Pending[]>();
  #cancel: (() => void) | undefined;
  /** The flush is due at the end of this tick (not later in a window). */
  #soon = false;
  /** A batch of the attended lane alone is due once the current task's microtasks run. */
  #attendedSoon = false;
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
   * Run `work` in the next batch's transaction (ahead of the writes in lower lanes, see the module
   * comment); resolves with its result once that transaction committed.
   */
  submit<T>(work: (sql: Statements) => T, lane: WriteLane = "routine", task?: string): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.enqueue(work, resolve as (value: unknown) => void, reject, lane, task),
    );
  }

  /**
   * `submit` with callbacks instead of a promise: `resolve` or `reject` is called once, after the
   * COMMIT (`resolve` told whether the write committed in the attended lane). `task`: the task the
   * write is to, if one (a write to it in a higher lane lifts this one).
   */
  enqueue(
    work: (sql: Statements) => unknown,
    resolve: (value: unknown, attended: boolean) => void,
    reject: (error: unknown) => void,
    lane: WriteLane = "routine",
    task?: string,
  ): void {
    const rank = RANK[lane];
    const pending: Pending = { work, resolve, reject, task, rank };
    if (task !== undefined) {
      const queued = this.#ofTask.get(task);
      if (queued === undefined) this.#ofTask.set(task, [pending]);
      else {
        if (rank < ROUTINE) this.#lift(queued, rank);
        queued.push(pending);
      }
    }
    this.#lanes[rank]?.push(pending);
    this.#waiting++;
    // An attended write does not wait for the end of the tick: a person waits on each of the few
    // writes between their word and the request that carries it, and at 10,000 live legs a tick's
    // other work (a pacer's slice, a batch and what it resolves) cost each of them 10-15 ms.
    if (rank === ATTENDED && !this.#attendedSoon) {
      this.#attendedSoon = true;
      queueMicrotask(() => {
        this.#attendedSoon = false;
        if (this.#head(ATTENDED) !== undefined) this.#runBatch(MAX_BATCH_MS, true);
      });
    }
    // A full batch, or a person's write, goes at the end of this tick, even inside a wider window.
    if ((rank < ROUTINE || this.#waiting >= this.#settings.maxBatch) && !this.#soon) this.#schedule(0);
    else if (this.#cancel === undefined) this.#schedule(this.#settings.windowMs);
  }

  /** Raise the task's writes waiting below `rank` to it, in their order (their old slots are skipped). */
  #lift(queued: readonly Pending[], rank: number): void {
    for (const pending of queued) {
      if (pending.rank <= rank) continue;
      pending.rank = rank;
      this.#lanes[rank]?.push(pending);
    }
  }

  /** The first write waiting in lane `rank`, dropping the slots of writes lifted out of it. */
  #head(rank: number): Pending | undefined {
    const lane = this.#lanes[rank] as Pending[];
    let head = lane[0];
    while (head !== undefined && head.rank !== rank) {
      lane.shift();
      head = lane[0];
    }
    return head;
  }

  /**
   * The next write to run: an attended one if any waits; else the person lane's first, except
   * right after a person's while routine ones wait.
   */
  #next(): Pending {
    let rank = ATTENDED;
    if (this.#head(ATTENDED) === undefined) {
      const routine = this.#head(ROUTINE) !== undefined;
      const person = this.#head(PERSON) !== undefined && (!this.#personLast || !routine);
      this.#personLast = person;
      rank = person ? PERSON : ROUTINE;
    }
    const pending = (this.#lanes[rank] as Pending[]).shift() as Pending;
    this.#waiting--;
    if (pending.task !== undefined) {
      const queued = this.#ofTask.get(pending.task) as Pending[];
      queued.splice(queued.indexOf(pending), 1);
      if (queued.length === 0) this.#ofTask.delete(pending.task);
    }
    return pending;
  }

  /** Every write waiting, once each, leaving the writer empty (their transaction could not begin). */
  #takeAll(): Pending[] {
    const all: Pending[] = [];
    for (const [rank, lane] of this.#lanes.entries()) {
      for (const pending of lane) if (pending.rank === rank) all.push(pending);
      lane.length = 0;
    }
    this.#waiting = 0;
    this.#ofTask.clear();
    return all;
  }

  /** Commit everything queued now, in batches, without waiting for the tick (on close). */
  drain(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#soon = false;
    while (this.#waiting > 0) this.#runBatch(Number.POSITIVE_INFINITY);
  }

  #schedule(windowMs: number): void {
    this.#cancel?.();
    this.#soon = windowMs === 0;
    this.#cancel = scheduleFlush(windowMs, () => {
      this.#cancel = undefined;
      this.#soon = false;
      // The attended writes it was scheduled for may have gone in a batch of their own already.
      if (this.#waiting > 0) this.#runBatch(MAX_BATCH_MS);
      // What did not fit goes in the next tick's batch, so timers and I/O run in between.
      if (this.#waiting > 0 && this.#cancel === undefined) this.#schedule(0);
    });
  }

  /** Run one transaction of queued writes, at most `maxBatch` or for about `budgetMs`. */
  #runBatch(budgetMs: number, attendedOnly = false): void {
    try {
      this.#runBatchTransaction(budgetMs, attendedOnly);
    } finally {
      this.#host.afterBatch?.();
    }
  }

  // (Named after #runBatch: the crash fixture tells the batch's own clock reads by that name.)
  #runBatchTransaction(budgetMs: number, attendedOnly: boolean): void {
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
    if (this.#waiting === 1) {
      this.#runAlone(sql, this.#next(), started);
      return;
    }
    const more = attendedOnly ? () => this.#head(ATTENDED) !== undefined : () => this.#waiting > 0;
    try {
      while (more() && taken.length < this.#settings.maxBatch) {
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
      if (ok) pending.resolve(value, pending.rank === ATTENDED);
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
    pending.resolve(value, pending.rank === ATTENDED);
  }
}
