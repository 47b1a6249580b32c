/**
 * `PostgresStore`: the `Store` port on one PostgreSQL database through `pg`, for many API nodes
 * and workers sharing one log. An append is one transaction that locks the task row, checks the
 * lease (by the database's clock) and `expectedSeq`, and inserts the events under the
 * `(task_no, seq)` primary key, which also rejects a racing duplicate. Watches are woken by
 * `LISTEN/NOTIFY` and a bounded poll. The semantics (stamping, leases, runnability, cursors,
 * limits) come from the store rules of `@sema-agent/core/store-kit`, so this file only maps them onto tables.
 */

import type { Store, StoredEvent, TaskEvent, TaskRecord } from "@sema-agent/core";
import {
  type ListRecordsOptions,
  type PutRecordInput,
  type RecordPage,
  SeqConflictError,
  type StoredRecord,
  StoreUnavailableError,
  TaskExistsError,
  TaskNotFoundError,
} from "@sema-agent/core/protocol";
import {
  type AcquireLeaseOptions,
  type AppendOptions,
  assertAfterSeq,
  assertBlob,
  assertBlobDigest,
  assertBlobSize,
  assertEventText,
  assertLeaseAvailable,
  assertLeaseHeld,
  assertLimit,
  assertSnapshotSeq,
  assertTtl,
  ChangeNotifier,
  type Claim,
  type ClaimOptions,
  type CountChildrenOptions,
  type CreateTaskInput,
  checkExpectedVersion,
  checkPutRecord,
  checkRecordKey,
  childCountIds,
  childCountsOf,
  type DeletedTask,
  EMPTY_SUMMARY,
  finishedPageRequest,
  forkSourceOf,
  type GroupCommitOptions,
  type GroupCommitSettings,
  groupCommitSettings,
  isLeaseLive,
  type Lease,
  type ListFinishedOptions,
  type ListRunnableOptions,
  type ListTasksOptions,
  movesUsage,
  newId,
  newLease,
  objectiveSearchKey,
  type ReadOptions,
  type RecordColumns,
  recordListingFromColumns,
  recordPageRequest,
  restoredLog,
  type Snapshot,
  type StoreSizeLimits,
  type StoreStats,
  type StoreStatsOptions,
  SummaryCache,
  sizeLimits,
  snapshotStateText,
  statsRequest,
  storedRecordFromColumns,
  summarizeAfter,
  type TaskPage,
  taskPageOf,
  taskPageRequest,
  type UsageQuery,
  type UsageReport,
  validateEvents,
  type WatchOptions,
  wantsWorker,
  watchTask,
  writeLaneOf,
} from "@sema-agent/core/store-kit";
import type pg from "pg";
import { type BatchedAppend, commitAppendBatch } from "./append-batch.ts";
import { appendIfUnchanged } from "./append-unchanged.ts";
import { Coalescer } from "./coalescer.ts";
import { isUniqueViolation, quoteSchema, toStoreError } from "./connection.ts";
import {
  acquireCoalescer,
  type BatchedAcquire,
  type BatchedRelease,
  type BatchedRenew,
  type LeaseBatchHost,
  releaseCoalescer,
  renewCoalescer,
} from "./lease-batches.ts";
import { EventListener } from "./listener.ts";
import { type Queries, queries } from "./queries.ts";
import {
  type BatchedLookup,
  type BatchedRead,
  type ReadBatchHost,
  readCoalescer,
  snapshotCoalescer,
  taskCoalescer,
} from "./read-batches.ts";
import { type EventRow, eventOf, recordOf, type SnapshotRow, snapshotOf, type TaskRow } from "./rows.ts";
import { claimRunnableTasks, listRunnableTasks } from "./runnable.ts";
import { Database, type PoolLane, poolOf, type Tx } from "./session.ts";
import {
  deleteTaskRows,
  listFinishedRows,
  type OperationQueries,
  operationQueries,
  restoreTaskRows,
  storeStats,
} from "./store-operations.ts";
import { UsageCounters } from "./usage-counters.ts";
import { inputIdsOf, storedEvents } from "./write-events.ts";

/**
 * Most times a put of a record runs its statement again after losing the race for a version to
 * another put of the same name. Each loss means another put of the name committed meanwhile, so
 * this is reached only by a name written by a hundred writers at once.
 */
const RECORD_PUT_ATTEMPTS = 100;

/**
 * How a {@link PostgresStore} reaches its database (a connection string, or a pool the caller owns:
 * one of the two is required), which schema holds its tables, and its watchers' longest wait.
 */
export interface PostgresStoreOptions extends StoreSizeLimits {
  /** `postgres://user@host:port/database`; the store makes (and on close ends) its own pool. */
  connectionString?: string;
  /** A pool the caller owns (and ends); the store holds one of its clients for LISTEN. */
  pool?: pg.Pool;
  /** The schema holding the tables, created if missing. Default `sema`. */
  schema?: string;
  /** Longest a watcher waits before reading again without a notification. Default 250 ms. */
  pollMs?: number;
  /**
   * Group commit: the appends and lease changes of concurrent legs within one tick, or while
   * earlier batches are in flight, go as one statement (one transaction), each append still
   * conditional on its own task's seq and lease (see docs/guide/stores.md); their reads
   * (`read`, `getTask`, `latestSnapshot`) are coalesced the same way. Default on
   * (`{ windowMs: 0, maxBatch: 256 }`); `false` sends each on its own. A bad value is a `ConfigError`.
   */
  groupCommit?: GroupCommitOptions | boolean;
}

/**
 * The {@link Store} in PostgreSQL, for many machines sharing one database: claims use `FOR UPDATE SKIP
 * LOCKED`, watchers wake on `LISTEN`/`NOTIFY` (and poll as a fallback), and the schema is migrated
 * once however many nodes start together. `PostgresStore.open` waits until it is ready.
 */
export class PostgresStore implements Store {
  readonly #db: Database;
  readonly #schema: string;
  readonly #sql: Queries;
  readonly #usage: UsageCounters;
  readonly #pollMs: number;
  readonly #notifier = new ChangeNotifier();
  readonly #summaries = new SummaryCache("PostgreSQL");
  readonly #listener: EventListener;
  readonly #appends: Coalescer<BatchedAppend> | undefined;
  readonly #releases: Coalescer<BatchedRelease> | undefined;
  readonly #acquires: Coalescer<BatchedAcquire> | undefined;
  readonly #renewals: Coalescer<BatchedRenew> | undefined;
  readonly #reads: Coalescer<BatchedRead> | undefined;
  readonly #tasks: Coalescer<BatchedLookup<TaskRow>> | undefined;
  readonly #snapshots: Coalescer<BatchedLookup<Snapshot | undefined>> | undefined;
  #soloWrites = 0;
  /** The statements of deletion, retention listings and stats. */
  readonly #ops: OperationQueries;
  /** The largest event and blob it takes. */
  readonly #limits: Required<StoreSizeLimits>;

  /**
   * `ContentTooLarge` for an event over `maxEventBytes` of JSON. The write serializes it again: a
   * few µs an append beside a round trip to the server.
   */
  #checkSizes(events: readonly TaskEvent[]): void {
    events.forEach((event, i) => {
      assertEventText(JSON.stringify(event), i, this.#limits.maxEventBytes);
    });
  }

  /** Make the store and start migrating; calls wait for it. Use `ready()` or `open()` to see failures early. */
  constructor(options: PostgresStoreOptions) {
    this.#schema = options.schema ?? "sema";
    this.#limits = sizeLimits("PostgresStore", options);
    this.#sql = queries(quoteSchema(this.#schema));
    this.#ops = operationQueries(quoteSchema(this.#schema));
    this.#usage = new UsageCounters(quoteSchema(this.#schema));
    this.#pollMs = options.pollMs ?? 250;
    const groupCommit = groupCommitSettings("PostgresStore", options.groupCommit);
    this.#db = new Database(options, this.#schema, this.#sql);
    this.#listener = new EventListener(this.#db.pool, this.#notifier);
    this.#appends = groupCommit === undefined ? undefined : this.#appendCoalescer(groupCommit);
    const leases: LeaseBatchHost = {
      query: (text, params) => this.#query(text, params),
      renewQuery: (text, params) => this.#db.priorityQuery(text, params),
      sql: this.#sql,
      acquireAlone: (taskId, options) => this.#acquireLocked(taskId, options),
      renewAlone: (taskId, token, ttlMs) => this.#renewLocked(taskId, token, ttlMs),
    };
    this.#releases = groupCommit === undefined ? undefined : releaseCoalescer(leases, groupCommit);
    this.#acquires = groupCommit === undefined ? undefined : acquireCoalescer(leases, groupCommit);
    this.#renewals = groupCommit === undefined ? undefined : renewCoalescer(leases, groupCommit);
    // Reads coalesce with group commit: at thousands of legs they are most of the statements.
    const reads: ReadBatchHost = {
      query: (text, params, lane) => this.#db.query(text, params, poolOf(lane)),
      sql: this.#sql,
    };
    this.#reads = groupCommit === undefined ? undefined : readCoalescer(reads, groupCommit);
    this.#tasks = groupCommit === undefined ? undefined : taskCoalescer(reads, groupCommit);
    this.#snapshots = groupCommit === undefined ? undefined : snapshotCoalescer(reads, groupCommit);
  }

  #appendCoalescer(settings: GroupCommitSettings): Coalescer<BatchedAppend> {
    const host = {
      db: this.#db,
      sql: this.#sql,
      summaries: this.#summaries,
      alone: (append: BatchedAppend, pool: PoolLane) =>
        this.#appendLocked(
          append.taskId,
          append.events,
          {
            expectedSeq: append.expectedSeq,
            ...(append.leaseToken === undefined ? {} : { leaseToken: append.leaseToken }),
          },
          pool,
        ),
    };
    return new Coalescer(
      settings,
      (append) => append.taskId,
      (batch, lane) =>
        commitAppendBatch(host, batch, lane).catch((error: unknown) => {
          for (const append of batch) append.reject(toStoreError(error, "group commit"));
        }),
    );
  }

  /**
   * Statements sent so far for appends and lease releases, and how many writes they carried
   * (with group commit, many writes share one statement and one transaction).
   */
  get writeStats(): { writes: number; commits: number } {
    const batches =
      (this.#appends?.batches ?? 0) +
      (this.#releases?.batches ?? 0) +
      (this.#acquires?.batches ?? 0) +
      (this.#renewals?.batches ?? 0);
    return { writes: this.#soloWrites + this.#batchedWrites, commits: this.#soloWrites + batches };
  }

  #batchedWrites = 0;

  /** Open a store and wait until its schema is migrated. Throws `StoreUnavailable` if it cannot be. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const store = new PostgresStore(options);
    try {
      await store.ready();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** The store's pool (for tables that live beside the store's, like the server's tokens). */
  get pool(): pg.Pool {
    return this.#db.pool;
  }

  /** The schema holding this store's tables. */
  get schema(): string {
    return this.#schema;
  }

  /** Resolves once the schema is migrated; rejects with `StoreUnavailable` if it could not be. */
  ready(): Promise<void> {
    return this.#db.ready;
  }

  #open(): Promise<void> {
    return this.#db.open();
  }

  #query<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]> {
    return this.#db.query<R>(text, params);
  }

  #tx<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#db.tx(work);
  }

  async #dbNow(tx: Tx): Promise<number> {
    const result = await tx.client.query<{ now_ms: number }>(tx.sql.nowMs);
    return result.rows[0]?.now_ms ?? Date.now();
  }

  async #lockTask(tx: Tx, taskId: string): Promise<TaskRow> {
    const row = (await tx.client.query<TaskRow>(tx.sql.lockTask, [taskId])).rows[0];
    if (row === undefined) throw new TaskNotFoundError(taskId);
    return row;
  }

  async #requireTask(taskId: string): Promise<void> {
    const rows = await this.#query(this.#sql.taskNo, [taskId]);
    if (rows.length === 0) throw new TaskNotFoundError(taskId);
  }

  async createTask(input: CreateTaskInput): Promise<StoredEvent[]> {
    await this.#open();
    const events: TaskEvent[] = [input.created, ...(input.more ?? [])];
    validateEvents(events);
    this.#checkSizes(events);
    const taskId = input.taskId ?? newId();
    const principal = input.created.principal;
    const summary = summarizeAfter(events, EMPTY_SUMMARY, 0);
    const text = JSON.stringify(summary);
    const bodies = events.map((event) => JSON.stringify(event));
    const wants = wantsWorker(summary);
    const params = [
      taskId,
      principal,
      input.created.parentTaskId ?? null,
      events.length,
      summary.status,
      wants,
      text,
      events.map((_, i) => i + 1),
      bodies,
      inputIdsOf(events),
      wants ? this.#runnablePayload(taskId) : null,
      forkSourceOf(summary),
      input.created.agent ?? null,
      objectiveSearchKey(input.created.objective),
    ];
    // Quotas: a creation held to maxActiveTasks, or whose first events hold a model turn, runs the
    // same statement in a transaction that takes the principal's lock and checks its active tasks
    // first, and counts the turns' usage after, so racing creations on any node never both take
    // the last slot. Every other creation stays one statement.
    const checked = input.maxActiveTasks !== undefined || movesUsage(events);
    const row = checked
      ? await this.#tx(async (tx) => {
          await this.#usage.checkCreate(tx.client, principal, input.created.parentTaskId, input.maxActiveTasks);
          const [inserted] = (await tx.client.query<{ at: string }>(tx.sql.createTask, params)).rows;
          if (inserted === undefined) throw new TaskExistsError(taskId);
          await this.#usage.countCreate(tx.client, principal, input.created.model, events, Date.parse(inserted.at));
          return inserted;
        })
      : (await this.#query<{ at: string }>(this.#sql.createTask, params))[0];
    if (row === undefined) throw new TaskExistsError(taskId);
    const created = { stored: storedEvents(bodies, taskId, 0, row.at), text, summary };
    this.#summaries.remember(taskId, created.text, created.summary);
    this.#notifier.notify(taskId, created.stored.at(-1)?.seq);
    return created.stored;
  }

  async getTask(taskId: string): Promise<TaskRecord> {
    const tasks = this.#tasks;
    if (tasks !== undefined) {
      await this.#open();
      return recordOf(await new Promise<TaskRow>((resolve, reject) => tasks.add({ taskId, resolve, reject })));
    }
    const [row] = await this.#query<TaskRow>(this.#sql.task, [taskId]);
    if (row === undefined) throw new TaskNotFoundError(taskId);
    return recordOf(row);
  }

  async append(taskId: string, events: TaskEvent[], options: AppendOptions): Promise<StoredEvent[]> {
    await this.#open();
    try {
      validateEvents(events);
      this.#checkSizes(events);
    } catch (error) {
      await this.#requireTask(taskId);
      throw error;
    }
    // An append that moves a usage counter (a model turn) counts it in the statement that writes
    // it, on every path: batched, one round trip, or locking.
    const lane = writeLaneOf(events, options.lane);
    const pool = poolOf(lane);
    if (this.#appends !== undefined && events.length > 0 && this.#summaries.peek(taskId) !== undefined) {
      // This store wrote the task last (a leg's own appends): the batch can reduce its summary.
      this.#batchedWrites++;
      const appends = this.#appends;
      const stored = await new Promise<StoredEvent[]>((resolve, reject) =>
        appends.add(
          {
            taskId,
            events,
            expectedSeq: options.expectedSeq,
            leaseToken: options.leaseToken,
            runnablePayload: this.#runnablePayload(taskId),
            resolve,
            reject,
          },
          lane,
        ),
      );
      this.#notifier.notify(taskId, stored.at(-1)?.seq);
      return stored;
    }
    this.#soloWrites++;
    const unchanged = await appendIfUnchanged(this.#db, this.#sql, this.#summaries, {
      taskId,
      events,
      expectedSeq: options.expectedSeq,
      leaseToken: options.leaseToken,
      runnablePayload: this.#runnablePayload(taskId),
      pool,
    });
    if (unchanged !== undefined) {
      this.#notifier.notify(taskId, unchanged.at(-1)?.seq);
      return unchanged;
    }
    return this.#appendLocked(taskId, events, options, pool);
  }

  /**
   * The append on the locking path: the row locked, the lease and seq checked, the writes in one
   * statement; on `pool` (the priority lane's for a leg a person waits on).
   */
  async #appendLocked(
    taskId: string,
    events: readonly TaskEvent[],
    options: AppendOptions,
    pool: PoolLane = "main",
  ): Promise<StoredEvent[]> {
    const written = await this.#db.tx(async (tx) => {
      // Four round trips in all: BEGIN, this, the writes, COMMIT.
      const row = (await tx.client.query<TaskRow & { now_ms: number }>(tx.sql.lockTaskNow, [taskId])).rows[0];
      if (row === undefined) throw new TaskNotFoundError(taskId);
      const record = recordOf(row);
      const now = row.now_ms;
      if (options.leaseToken !== undefined) assertLeaseHeld(taskId, record.lease, options.leaseToken, now);
      if (options.expectedSeq !== record.lastSeq) {
        throw new SeqConflictError(taskId, options.expectedSeq, record.lastSeq);
      }
      if (events.length === 0) return undefined;
      const at = new Date(now).toISOString();
      const bodies = events.map((event) => JSON.stringify(event));
      const seqs = events.map((_, i) => record.lastSeq + i + 1);
      const lastSeq = record.lastSeq + events.length;
      const summary = summarizeAfter(events, record.summary, record.lastSeq);
      const text = JSON.stringify(summary);
      const wants = wantsWorker(summary);
      try {
        await tx.client.query(tx.sql.appendWrites, [
          row.task_no,
          at,
          seqs,
          bodies,
          lastSeq,
          text,
          summary.status,
          wants,
          `${taskId}:${lastSeq}`,
          // Runnable now (no live lease): tell the workers, so one claims it without waiting to poll.
          wants && !isLeaseLive(record.lease, now) ? this.#runnablePayload(taskId) : null,
          inputIdsOf(events) ?? [],
          forkSourceOf(summary),
        ]);
      } catch (error) {
        // The row lock makes this unreachable between stores that lock; the key is the last word.
        if (isUniqueViolation(error)) throw new SeqConflictError(taskId, options.expectedSeq, record.lastSeq + 1);
        throw error;
      }
      // The turns' usage moves its counters in this same transaction.
      if (movesUsage(events))
        await this.#usage.countAppend(tx.client, { taskNo: row.task_no, principal: record.principal }, events, now);
      return { stored: storedEvents(bodies, taskId, record.lastSeq, at), text, summary };
    }, pool);
    if (written === undefined) return [];
    // What this store wrote last is what its next append to the task can take in one round trip.
    this.#summaries.remember(taskId, written.text, written.summary);
    this.#notifier.notify(taskId, written.stored.at(-1)?.seq);
    return written.stored;
  }

  async usage(query: UsageQuery): Promise<UsageReport> {
    await this.#open();
    try {
      return await this.#usage.report(this.#db.pool, query.principal, query.sinceMs);
    } catch (error) {
      throw toStoreError(error, "query");
    }
  }

  async read(taskId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    await this.#open();
    let afterSeq: number;
    let limit: number | null;
    try {
      afterSeq = assertAfterSeq(options.afterSeq);
      limit = options.limit === undefined ? null : assertLimit(options.limit, 0, Number.MAX_SAFE_INTEGER);
    } catch (error) {
      await this.#requireTask(taskId);
      throw error;
    }
    // A leg a person waits on reads in their lane, ahead of routine reads (an attended one on the
    // priority lane's pool).
    const lane = options.lane ?? "routine";
    const reads = this.#reads;
    if (reads !== undefined)
      return new Promise((resolve, reject) => reads.add({ taskId, afterSeq, limit, resolve, reject }, lane));
    const rows = await this.#db.query<EventRow>(this.#sql.readEvents, [taskId, afterSeq, limit], poolOf(lane));
    // An empty result is also what an unknown task gives; only then is the extra lookup needed.
    if (rows.length === 0) await this.#requireTask(taskId);
    return rows.map((row) => eventOf(taskId, row));
  }

  async findInput(taskId: string, inputId: string): Promise<StoredEvent | undefined> {
    const [row] = await this.#query<EventRow>(this.#sql.findInput, [taskId, inputId]);
    if (row !== undefined) return eventOf(taskId, row);
    await this.#requireTask(taskId);
    return undefined;
  }

  watch(taskId: string, options: WatchOptions = {}): AsyncIterable<StoredEvent> {
    return watchTask(
      this,
      taskId,
      options,
      (signal) => this.#changed(taskId, signal),
      // Trusted only while a connection listens: then every append anywhere is heard, in order.
      () => (this.#listener.listening ? this.#notifier.lastKnown(taskId) : undefined),
    );
  }

  /** Resolve on a notification for the task (from any node), after `pollMs`, or on abort. */
  #changed(taskId: string, signal: AbortSignal): Promise<void> {
    // Closed: resolve at once, so the tail's next read reports StoreUnavailable.
    if (this.#db.closed) return Promise.resolve();
    this.#listener.ensure();
    return this.#notifier.wait(taskId, signal, this.#pollMs);
  }

  #runnablePayload(taskId: string): string {
    return `${this.#schema}:${taskId}`;
  }

  /**
   * Call `listener` whenever a task of this store's schema may have become runnable on any node
   * (created, given work while parked, released with work pending). Workers claim at once
   * instead of at their next poll; a lost notification only delays the claim to that poll.
   * Returns the unsubscribe function.
   */
  onRunnable(listener: (taskId: string) => void): () => void {
    this.#listener.ensure();
    return this.#listener.onRunnable(this.#schema, listener);
  }

  /**
   * Call `listener` when a task of any node may have changed (its notification on `sema_events`,
   * or this store's own write), or with undefined when notifications may have been missed (the
   * LISTEN connection came back). Returns the unsubscribe function.
   */
  onTaskChange(listener: (taskId: string | undefined) => void): () => void {
    this.#listener.ensure();
    return this.#notifier.onChange(listener);
  }

  /** Resolves once the LISTEN connection is up (or failed); for tests that rely on NOTIFY alone. */
  async listening(): Promise<void> {
    this.#listener.ensure();
    await this.#listener.settled();
  }

  async acquireLease(taskId: string, options: AcquireLeaseOptions): Promise<Lease> {
    const acquires = this.#acquires;
    if (acquires === undefined) {
      this.#soloWrites++;
      return this.#acquireLocked(taskId, options);
    }
    await this.#open();
    assertTtl(options.ttlMs);
    this.#batchedWrites++;
    // The token and holder now; the expiry is the database's, set when the batch took it.
    const lease = newLease(taskId, options.holder, 0);
    return new Promise((resolve, reject) => acquires.add({ lease, options, resolve, reject }));
  }

  async #acquireLocked(taskId: string, options: AcquireLeaseOptions): Promise<Lease> {
    return this.#tx(async (tx) => {
      const row = await this.#lockTask(tx, taskId);
      const record = recordOf(row);
      assertTtl(options.ttlMs);
      const now = await this.#dbNow(tx);
      assertLeaseAvailable(taskId, record.lease, options.holder, now, options.replaceHolderId);
      const expires = new Date(now + options.ttlMs);
      const lease = newLease(taskId, options.holder, expires.getTime());
      await tx.client.query(tx.sql.setLease, [row.task_no, lease.token, JSON.stringify(lease.holder), expires]);
      return lease;
    });
  }

  async renewLease(taskId: string, token: string, ttlMs: number): Promise<Lease> {
    const renewals = this.#renewals;
    if (renewals === undefined) {
      this.#soloWrites++;
      return this.#renewLocked(taskId, token, ttlMs);
    }
    await this.#open();
    assertTtl(ttlMs);
    this.#batchedWrites++;
    return new Promise((resolve, reject) => renewals.add({ taskId, token, ttlMs, resolve, reject }));
  }

  async #renewLocked(taskId: string, token: string, ttlMs: number): Promise<Lease> {
    return this.#tx(async (tx) => {
      const row = await this.#lockTask(tx, taskId);
      const lease = recordOf(row).lease;
      assertTtl(ttlMs);
      const now = await this.#dbNow(tx);
      assertLeaseHeld(taskId, lease, token, now);
      const expires = new Date(now + ttlMs);
      await tx.client.query(tx.sql.setLease, [row.task_no, lease.token, JSON.stringify(lease.holder), expires]);
      return { ...lease, expiresAt: expires.toISOString() };
    });
  }

  async releaseLease(taskId: string, token: string): Promise<void> {
    await this.#open();
    let released: { wantsWorker: boolean } | undefined;
    const releases = this.#releases;
    if (releases !== undefined) {
      this.#batchedWrites++;
      released = await new Promise((resolve, reject) => releases.add({ taskId, token, resolve, reject }));
    } else {
      this.#soloWrites++;
      try {
        const rows = (await this.#db.pool.query<{ wants_worker: boolean }>(this.#sql.releaseLease, [taskId, token]))
          .rows;
        released = rows[0] === undefined ? undefined : { wantsWorker: rows[0].wants_worker };
      } catch (error) {
        throw toStoreError(error, "query");
      }
    }
    if (released === undefined) return this.#requireTask(taskId);
    // A release can make a task runnable for others (work arrived as the leg ended): tell them.
    this.#notifier.notify(taskId);
    if (released.wantsWorker)
      await this.#query(this.#sql.notifyRunnable, [this.#runnablePayload(taskId)]).catch(() => undefined);
  }

  async listRunnable(options: ListRunnableOptions = {}): Promise<TaskRecord[]> {
    await this.#open();
    return listRunnableTasks(this.#db, this.#sql, assertLimit(options.limit, 100), options);
  }

  async listLeasedOn(host: string, options: ListRunnableOptions = {}): Promise<TaskRecord[]> {
    const rows = await this.#query<TaskRow>(this.#sql.leasedOn, [host, assertLimit(options.limit, 100)]);
    return rows.map(recordOf);
  }

  async claimRunnable(options: ClaimOptions): Promise<Claim[]> {
    // Claims come at every poll: the moment to bring a dropped LISTEN connection back.
    if (this.#listener.wantsRunnable) this.#listener.ensure();
    return claimRunnableTasks(this.#db, this.#sql, options);
  }

  async listTasks(options: ListTasksOptions): Promise<TaskPage> {
    await this.#open();
    const { limit, cursor, search } = taskPageRequest(options);
    const statement = this.#sql.list({
      status: options.status !== undefined,
      forkedFrom: options.forkedFrom !== undefined,
      agent: options.agent !== undefined,
      parent: options.parentTaskId !== undefined,
      roots: options.rootsOnly === true,
      search: search !== undefined,
      cursor: cursor !== undefined,
    });
    // In the order of the query's parameters (see `listSql`).
    const params: Array<string | number> = [options.principal, limit + 1];
    if (options.status !== undefined) params.push(options.status);
    if (options.forkedFrom !== undefined) params.push(options.forkedFrom);
    if (options.agent !== undefined) params.push(options.agent);
    if (options.parentTaskId !== undefined) params.push(options.parentTaskId);
    if (search !== undefined) params.push(search);
    if (cursor !== undefined) params.push(cursor.createdAt, cursor.taskId);
    return taskPageOf(await this.#query<TaskRow>(statement, params), limit, recordOf);
  }

  async countChildren(options: CountChildrenOptions): Promise<Map<string, number>> {
    const ids = childCountIds(options);
    await this.#open();
    if (ids.length === 0) return new Map();
    const rows = await this.#query<{ id: string; n: number }>(this.#ops.countChildren, [options.principal, ids]);
    return childCountsOf(ids, new Map(rows.map((row) => [row.id, Number(row.n)])));
  }

  async putBlob(blob: { digest: string; bytes: Uint8Array }): Promise<void> {
    assertBlob(blob);
    assertBlobSize(blob.bytes, this.#limits.maxBlobBytes);
    await this.#query(this.#sql.putBlob, [blob.digest, Buffer.from(blob.bytes)]);
  }

  async getBlob(digest: string): Promise<Uint8Array | undefined> {
    assertBlobDigest(digest);
    const [row] = await this.#query<{ bytes: Buffer }>(this.#sql.blob, [digest]);
    // A plain Uint8Array copy: callers get the bytes, not pg's pooled Buffer.
    return row === undefined ? undefined : new Uint8Array(row.bytes);
  }

  /**
   * A new version of a record, in one statement: the name's latest version plus one, stamped by
   * the database clock. The primary key decides a race for a version; the loser runs again (see
   * `putRecord` in queries.ts), so it is written under the next version, or, when it expected a
   * version, fails with `RecordConflict` naming the version now latest.
   */
  async putRecord(input: PutRecordInput): Promise<StoredRecord> {
    await this.#open();
    const { metaJson, bodyJson } = checkPutRecord(input);
    const params = [input.kind, input.principal, input.name, metaJson, bodyJson, input.expectedVersion ?? null];
    for (let attempt = 1; attempt <= RECORD_PUT_ATTEMPTS; attempt++) {
      const [row] = await this.#query<{ latest: number; version: number | null; created_at: string | null }>(
        this.#sql.putRecord,
        params,
      );
      if (row === undefined) throw new StoreUnavailableError("PostgreSQL store: a record put returned no row");
      if (row.version !== null && row.created_at !== null) {
        const columns = { name: input.name, version: row.version, created_at: row.created_at, meta: metaJson };
        return storedRecordFromColumns(input, { ...columns, body: bodyJson }, "PostgreSQL");
      }
      // Not written: the version expected is not the latest, or another put took the next one.
      checkExpectedVersion(input, row.latest);
    }
    throw new StoreUnavailableError(
      `PostgreSQL store: a put of ${input.kind} ${input.name} lost the race for a version ${RECORD_PUT_ATTEMPTS} times`,
    );
  }

  async getRecord(query: {
    kind: string;
    principal: string;
    name: string;
    version?: number;
  }): Promise<StoredRecord | undefined> {
    await this.#open();
    checkRecordKey(query);
    const { kind, principal, name, version } = query;
    const [statement, params] =
      version === undefined
        ? [this.#sql.latestRecord, [kind, principal, name]]
        : [this.#sql.recordVersion, [kind, principal, name, version]];
    const [row] = await this.#query<RecordColumns & { body: string }>(statement, params);
    return row === undefined ? undefined : storedRecordFromColumns(query, row, "PostgreSQL");
  }

  async listRecords(options: ListRecordsOptions): Promise<RecordPage> {
    await this.#open();
    const { limit, after } = recordPageRequest(options);
    // One name more than the page, to know whether another page follows.
    const rows = await this.#query<RecordColumns>(this.#sql.listRecords, [
      options.kind,
      options.principal,
      after ?? "",
      limit + 1,
    ]);
    const records = rows.slice(0, limit).map((row) => recordListingFromColumns(options, row, "PostgreSQL"));
    const last = records.at(-1);
    return rows.length > limit && last !== undefined ? { records, nextCursor: last.name } : { records };
  }

  async putSnapshot(snapshot: Snapshot): Promise<void> {
    const [row] = await this.#query<TaskRow>(this.#sql.task, [snapshot.taskId]);
    if (row === undefined) throw new TaskNotFoundError(snapshot.taskId);
    assertSnapshotSeq(snapshot.seq, row.last_seq);
    const state = snapshotStateText(snapshot);
    await this.#query(this.#sql.putSnapshot, [row.task_no, snapshot.seq, snapshot.v, state]);
  }

  async latestSnapshot(taskId: string): Promise<Snapshot | undefined> {
    const snapshots = this.#snapshots;
    if (snapshots !== undefined) {
      await this.#open();
      return new Promise((resolve, reject) => snapshots.add({ taskId, resolve, reject }));
    }
    const [row] = await this.#query<SnapshotRow>(this.#sql.snapshot, [taskId]);
    if (row === undefined) throw new TaskNotFoundError(taskId);
    return snapshotOf(row);
  }

  /** Write a log copied from another store as it was stored, in one transaction (see `Store.restoreTask`). */
  async restoreTask(events: readonly StoredEvent[]): Promise<TaskRecord> {
    const log = restoredLog(events);
    this.#checkSizes(log.bodies);
    await this.#tx((tx) => restoreTaskRows(tx, this.#ops, log));
    this.#notifier.notify(log.taskId, log.bodies.length);
    return this.getTask(log.taskId);
  }

  async listFinished(options: ListFinishedOptions): Promise<TaskPage> {
    const request = finishedPageRequest(options);
    return listFinishedRows((text, params) => this.#query(text, params), this.#ops, request);
  }

  /**
   * Delete a finished task and its descendants in one transaction (see `Store.deleteTask`), their
   * rows locked in task-id order as appends lock them. Plain deletes: autovacuum reuses the space.
   */
  async deleteTask(taskId: string): Promise<DeletedTask> {
    const deleted = await this.#tx((tx) => deleteTaskRows(tx, this.#ops, taskId));
    for (const id of deleted.taskIds) this.#notifier.notify(id);
    return deleted;
  }

  async stats(options?: StoreStatsOptions): Promise<StoreStats> {
    const request = statsRequest(options);
    return storeStats((text, params) => this.#query(text, params), this.#ops, this.#schema, request);
  }

  /** Stop listening and end the pool if the store made it. Later calls fail with `StoreUnavailable`. */
  async close(): Promise<void> {
    if (this.#db.closed) return;
    // Watchers wake, read, and end with StoreUnavailable.
    await this.#db.close(async () => {
      this.#notifier.notifyAll();
      await this.#listener.stop();
    });
  }
}
