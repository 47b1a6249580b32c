/**
 * `SqliteStore`: the `Store` port on one SQLite file through `node:sqlite` (no native addon). It is
 * the embedded default: one process or several on one machine share the file; appends are
 * serialized by SQLite's write lock and made conditional by `expectedSeq` inside the transaction.
 * The semantics (stamping, leases, runnability, cursors, limits) come from `@sema-agent/core/store-kit`'s
 * store rules, so this file only maps them onto tables.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Store, StoredEvent, TaskEvent, TaskRecord } from "@sema-agent/core";
import {
  type ListRecordsOptions,
  type PutRecordInput,
  type RecordPage,
  type StoredRecord,
  StoreUnavailableError,
  TaskNotFoundError,
} from "@sema-agent/core/protocol";
import {
  type AcquireLeaseOptions,
  type AppendOptions,
  assertAfterSeq,
  assertBlob,
  assertBlobDigest,
  assertBlobSize,
  assertLimit,
  ChangeNotifier,
  type Claim,
  type ClaimOptions,
  type CountChildrenOptions,
  type CreateTaskInput,
  checkPutRecord,
  checkRecordKey,
  childCountIds,
  childCountsOf,
  claimByListing,
  type DeletedTask,
  finishedPageRequest,
  groupCommitSettings,
  isRunnableRecord,
  type Lease,
  type ListFinishedOptions,
  type ListRunnableOptions,
  type ListTasksOptions,
  newId,
  type ReadOptions,
  type ReclaimedSpace,
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
  type TaskPage,
  taskPageOf,
  taskPageRequest,
  type UsageQuery,
  type UsageReport,
  validateEvents,
  type WatchOptions,
  type WriteLane,
  watchTask,
  writeLaneOf,
} from "@sema-agent/core/store-kit";
import { BatchWriter } from "./batch-writer.ts";
import { type CheckpointThread, startCheckpointThread } from "./checkpoint-thread.ts";

/** Writes a store makes before its checkpoint thread starts (`SqliteStoreOptions.checkpoints`). */
const CHECKPOINTS_AFTER_WRITES = 4096;

import { CommitPoller } from "./commit-poller.ts";
import { openDatabase, storeError } from "./connection.ts";
import {
  type EventRow,
  eventOf,
  inflateSnapshot,
  recordOf,
  type StoredSnapshotRow,
  snapshotOf,
  type TaskRow,
} from "./rows.ts";
import { rollback } from "./schema.ts";
import { COUNT_CHILDREN, type Statements } from "./statements.ts";
import { listFinishedRows, reclaim, storeStats, vacuumFile } from "./store-operations.ts";
import { checkpointsOf, type SqliteStoreOptions, type WriteStats, writerOf } from "./store-options.ts";
import { ThreadWriter } from "./thread-writer.ts";
import { UsageCounters } from "./usage-counters.ts";
import { runWrite, taskOfCommand, type WriteCommand, type WriteContext, type WriteResult } from "./write-commands.ts";
import { storedEvents } from "./write-events.ts";

/**
 * Rows fetched per query while reading. Pages keep each batch of row arrays short-lived, so the
 * garbage collector frees them cheaply instead of promoting one array of every row (measured on a
 * 100,000-event read: ~20% faster than one query). The log is append-only and read by seq, so
 * pages read a moment apart still form one gapless, ordered prefix of it.
 */
const READ_PAGE = 1000;

/**
 * The {@link Store} in one SQLite file through `node:sqlite`, for one machine: several processes may
 * share the file (writes serialize on SQLite's lock; watchers see other processes' appends by
 * polling). Opening creates and migrates the file; a file with a newer schema is refused.
 */
export class SqliteStore implements Store {
  readonly #path: string;
  readonly #now: () => number;
  readonly #notifier = new ChangeNotifier();
  readonly #summaries = new SummaryCache("SQLite");
  readonly #poller: CommitPoller;
  /** The main-thread group commit (`writer: "main"` with group commit on). */
  readonly #writer: BatchWriter | undefined;
  /** The writer thread (`writer: "thread"`). */
  readonly #thread: ThreadWriter | undefined;
  #db: DatabaseSync | undefined;
  #sql: Statements | undefined;
  readonly #usage: UsageCounters;
  /** The largest event and blob it takes. */
  readonly #limits: Required<StoreSizeLimits>;
  /** What this connection's writes need (`writer: "main"`). */
  readonly #context: WriteContext;
  #dataVersion = 0;
  /** `PRAGMA data_version` when `#lastKnown` last trusted the notifier's seqs (see there). */
  #knownVersion = 0;
  #writes = 0;
  #soloCommits = 0;
  /** Background checkpoints wanted, not started yet (they start after `CHECKPOINTS_AFTER_WRITES`). */
  #checkpointsDue: { busyTimeoutMs: number } | undefined;
  #checkpoints: CheckpointThread | undefined;
  #closing: Promise<void> | undefined;

  /**
   * Open (creating if needed) and migrate the database. Throws `StoreUnavailable` when the file is
   * not a database, cannot be opened, or has a schema newer than this code.
   */
  constructor(options: SqliteStoreOptions) {
    this.#path = options.path;
    this.#now = options.now ?? Date.now;
    const groupCommit = groupCommitSettings("SqliteStore", options.groupCommit);
    const writer = writerOf(options);
    const checkpoints = checkpointsOf(options);
    this.#limits = sizeLimits("SqliteStore", options);
    const { db, statements } = this.#guard(() => openDatabase(options.path, options.busyTimeoutMs ?? 5000, this.#now));
    this.#db = db;
    this.#sql = statements;
    statements.maxEventBytes = this.#limits.maxEventBytes;
    this.#usage = this.#guard(() => new UsageCounters(db));
    this.#context = { usage: this.#usage, summaries: this.#summaries };
    this.#poller = new CommitPoller({
      pollMs: options.pollMs ?? 25,
      changed: () => this.#foreignCommit(),
      wake: () => this.#notifier.notifyAll(),
    });
    this.#thread =
      writer === "thread"
        ? new ThreadWriter({
            path: options.path,
            busyTimeoutMs: options.busyTimeoutMs ?? 5000,
            groupCommit,
            pollMs: options.pollMs ?? 25,
            timeBatches: options.now === undefined,
            maxEventBytes: this.#limits.maxEventBytes,
            now: this.#now,
            foreignCommit: () => this.#notifier.notifyAll(),
            // Watchers wait again, on this thread's poller now (see #changed).
            died: () => this.#notifier.notifyAll(),
          })
        : undefined;
    this.#writer =
      groupCommit === undefined || writer === "thread"
        ? undefined
        : new BatchWriter(
            {
              statements: () => this.#statements(),
              rollback: () => {
                if (this.#db !== undefined) rollback(this.#db);
              },
              storeError: (error) => this.#storeError(error),
            },
            groupCommit,
            // The store's clock times the batches too: an injected one makes them deterministic.
            this.#now,
          );
    // With a writer thread, its COMMITs checkpoint there, off this thread already.
    if (checkpoints === "background" && writer === "main")
      this.#checkpointsDue = { busyTimeoutMs: options.busyTimeoutMs ?? 5000 };
  }

  /**
   * Start the checkpoint thread once the store has written enough for it to matter: a store that
   * writes a little (a test, a script, a lone task of a few hundred turns) never pays for starting
   * a thread, about 10 ms; see `checkpoint-thread.ts`.
   */
  #startCheckpoints(): void {
    const due = this.#checkpointsDue;
    const db = this.#db;
    if (due === undefined || db === undefined || this.#writes < CHECKPOINTS_AFTER_WRITES) return;
    this.#checkpointsDue = undefined;
    this.#checkpoints = this.#guard(() =>
      startCheckpointThread(db, { path: this.#path, busyTimeoutMs: due.busyTimeoutMs }, () => this.#db !== undefined),
    );
  }

  /** Writes made and transactions committed so far (with group commit, many writes share one). */
  get writeStats(): WriteStats {
    return {
      writes: this.#writes,
      commits: this.#soloCommits + (this.#writer?.commits ?? 0) + (this.#thread?.commits ?? 0),
      longestBatchMs: Math.max(this.#writer?.longestMs ?? 0, this.#thread?.longestMs ?? 0),
      checkpoints: this.#checkpoints?.checkpoints ?? 0,
    };
  }

  /** The typed form of a failure: SQLite's own become `StoreUnavailable`, the rest stay. */
  #storeError(error: unknown): unknown {
    return storeError(this.#path, error);
  }

  /** Run `work` on the open database, turning every SQLite failure into `StoreUnavailable`. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw this.#storeError(error);
    }
  }

  #statements(): Statements {
    if (this.#sql === undefined || this.#db === undefined) {
      throw new StoreUnavailableError(`the SQLite store ${this.#path} is closed`);
    }
    return this.#sql;
  }

  /**
   * Run `work` in a write transaction (the write lock is taken first, so what it reads stays
   * true): the next group commit's, or one of its own when group commit is off. Resolves once
   * the transaction committed.
   */
  async #write<T>(work: (sql: Statements) => T, lane: WriteLane = "routine", task?: string): Promise<T> {
    this.#writes++;
    if (this.#checkpointsDue !== undefined) this.#startCheckpoints();
    if (this.#writer !== undefined) {
      this.#statements();
      return this.#writer.submit(work, lane, task);
    }
    return this.#writeNow(work);
  }

  /**
   * Run `command`: on the writer thread, or in a write transaction on this connection (reading
   * the clock inside it, as the batch runs). Resolves once the transaction holding it committed.
   */
  #submit<C extends WriteCommand>(command: C, lane: WriteLane = "routine"): Promise<WriteResult<C>> {
    if (this.#thread === undefined)
      return this.#write((sql) => runWrite(this.#context, sql, command, this.#now()), lane, taskOfCommand(command));
    this.#writes++;
    this.#statements();
    return this.#thread.submit(command, lane);
  }

  /** `work` in a transaction of its own, now. */
  #writeNow<T>(work: (sql: Statements) => T): T {
    return this.#guard(() => {
      const sql = this.#statements();
      sql.begin.run();
      try {
        const result = work(sql);
        sql.commit.run();
        this.#soloCommits++;
        return result;
      } catch (error) {
        rollback(this.#db as DatabaseSync);
        throw error;
      }
    });
  }

  #row(sql: Statements, taskId: string): TaskRow {
    const row = sql.task.get(taskId) as TaskRow | undefined;
    if (row === undefined) throw new TaskNotFoundError(taskId);
    return row;
  }

  /** Throw `TaskNotFound` for an unknown task; used where MemoryStore reports it before other errors. */
  #requireTask(taskId: string): void {
    this.#guard(() => {
      if (this.#statements().taskNo.get(taskId) === undefined) throw new TaskNotFoundError(taskId);
    });
  }

  #foreignCommit(): boolean {
    const row = this.#statements().dataVersion.get() as { data_version: number } | undefined;
    const version = row?.data_version ?? 0;
    const changed = version !== this.#dataVersion;
    this.#dataVersion = version;
    // The poller's first look (its baseline) wakes nobody, but what this store knew of any task
    // may predate that commit: forget it, so `#lastKnown` can trust what is left while polling.
    if (changed && !this.#poller.polling) this.#notifier.notifyAll();
    return changed;
  }

  async createTask(input: CreateTaskInput): Promise<StoredEvent[]> {
    this.#statements();
    const events: TaskEvent[] = [input.created, ...(input.more ?? [])];
    validateEvents(events);
    const taskId = input.taskId ?? newId();
    const { maxActiveTasks } = input;
    // A new task's creation is a person's request (its first step goes first: `WorkLane`).
    const written = await this.#submit(
      maxActiveTasks === undefined
        ? { kind: "create", taskId, events }
        : { kind: "create", taskId, events, maxActiveTasks },
      "person",
    );
    const stored = storedEvents(events, taskId, written.firstSeq, written.at);
    this.#notifier.notify(taskId, stored.at(-1)?.seq);
    return stored;
  }

  async getTask(taskId: string): Promise<TaskRecord> {
    return this.#guard(() => recordOf(this.#row(this.#statements(), taskId)));
  }

  async append(taskId: string, events: TaskEvent[], options: AppendOptions): Promise<StoredEvent[]> {
    this.#statements();
    try {
      validateEvents(events);
    } catch (error) {
      this.#requireTask(taskId);
      throw error;
    }
    const { expectedSeq, leaseToken } = options;
    const written = await this.#submit(
      leaseToken === undefined
        ? { kind: "append", taskId, events, expectedSeq }
        : { kind: "append", taskId, events, expectedSeq, leaseToken },
      writeLaneOf(events, options.lane),
    );
    if (written === undefined) return [];
    const stored = storedEvents(events, taskId, written.firstSeq, written.at);
    this.#notifier.notify(taskId, stored.at(-1)?.seq);
    return stored;
  }

  async usage(query: UsageQuery): Promise<UsageReport> {
    this.#statements();
    return this.#guard(() => this.#usage.report(query.principal, query.sinceMs));
  }

  async findInput(taskId: string, inputId: string): Promise<StoredEvent | undefined> {
    const sql = this.#statements();
    return this.#guard(() => {
      const row = sql.findInput.get(taskId, inputId) as { seq: number; at: string; body: string } | undefined;
      if (row === undefined) {
        this.#requireTask(taskId);
        return undefined;
      }
      return eventOf(taskId, row.seq, row.at, row.body);
    });
  }

  async read(taskId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    const sql = this.#statements();
    let afterSeq: number;
    let limit: number;
    try {
      afterSeq = assertAfterSeq(options.afterSeq);
      limit = options.limit === undefined ? -1 : assertLimit(options.limit, 0, Number.MAX_SAFE_INTEGER);
    } catch (error) {
      this.#requireTask(taskId);
      throw error;
    }
    return this.#guard(() => {
      const events: StoredEvent[] = [];
      let seq = afterSeq;
      for (;;) {
        const want = limit === -1 ? READ_PAGE : Math.min(READ_PAGE, limit - events.length);
        const rows = sql.eventRows(taskId, seq, want);
        for (const [rowSeq, at, body] of rows) events.push(eventOf(taskId, rowSeq, at, body));
        if (rows.length < want || events.length === limit) break;
        seq = (rows[rows.length - 1] as EventRow)[0];
      }
      // An empty result is also what an unknown task gives; only then is the extra lookup needed.
      if (events.length === 0) this.#requireTask(taskId);
      return events;
    });
  }

  watch(taskId: string, options: WatchOptions = {}): AsyncIterable<StoredEvent> {
    return watchTask(
      this,
      taskId,
      options,
      (signal) => this.#changed(taskId, signal),
      () => this.#lastKnown(taskId),
    );
  }

  /**
   * The last seq this store knows of `taskId`, when no other connection can have appended unseen.
   * A writer thread's poll hears every other connection's commit (its baseline survives idle
   * spells). So does this connection's poller while it runs: every look that finds another
   * connection's commit forgets what this store knew (`#foreignCommit`), and a commit since the
   * last look wakes the watcher at the next one, as it would any watcher already waiting. Only
   * when the poller is idle does `PRAGMA data_version` (about 7 µs at 10,000 live legs, once per
   * watched step) say whether anyone else committed.
   */
  #lastKnown(taskId: string): number | undefined {
    const thread = this.#thread;
    if (thread !== undefined) return thread.dead ? undefined : this.#notifier.lastKnown(taskId);
    if (this.#poller.polling) return this.#notifier.lastKnown(taskId);
    const row = this.#guard(() => this.#statements().dataVersion.get() as { data_version: number } | undefined);
    const version = row?.data_version ?? 0;
    if (version !== this.#knownVersion) {
      this.#knownVersion = version;
      // Another connection committed: what this store knows may be stale, for every task.
      this.#notifier.notifyAll();
      return undefined;
    }
    return this.#notifier.lastKnown(taskId);
  }

  /** Resolve on an append through this store, on another connection's commit, or on abort. */
  #changed(taskId: string, signal: AbortSignal): Promise<void> {
    // Closed: resolve at once, so the tail's next read reports StoreUnavailable.
    if (this.#db === undefined) return Promise.resolve();
    // With a writer thread, it watches for other connections' commits (its own commits are all
    // of this store's, so none of them is news); without one, or once it died, this connection does.
    const thread = this.#thread;
    const release = thread !== undefined && !thread.dead ? thread.hold() : this.#poller.hold();
    return this.#notifier.wait(taskId, signal).finally(release);
  }

  /**
   * Call `listener` after this store's writes, with the task; with undefined when another
   * connection (another process) committed, which SQLite cannot name the tasks of: polled as a
   * watch is (`pollMs`) while a listener is subscribed. Returns the unsubscribe function.
   */
  onTaskChange(listener: (taskId: string | undefined) => void): () => void {
    const thread = this.#thread;
    const release = thread !== undefined && !thread.dead ? thread.hold() : this.#poller.hold();
    const stop = this.#notifier.onChange(listener);
    return () => {
      stop();
      release();
    };
  }

  async acquireLease(taskId: string, options: AcquireLeaseOptions): Promise<Lease> {
    const { holder, ttlMs, replaceHolderId } = options;
    return this.#submit(
      replaceHolderId === undefined
        ? { kind: "acquireLease", taskId, holder, ttlMs }
        : { kind: "acquireLease", taskId, holder, ttlMs, replaceHolderId },
    );
  }

  async renewLease(taskId: string, token: string, ttlMs: number): Promise<Lease> {
    // In the person lane: a renewal late behind a backlog of routine writes loses the lease, and
    // with it the leg's work so far; it is one small write per leg every third of the TTL.
    return this.#submit({ kind: "renewLease", taskId, token, ttlMs }, "person");
  }

  async releaseLease(taskId: string, token: string): Promise<void> {
    const released = await this.#submit({ kind: "releaseLease", taskId, token });
    // A release can make a task runnable for others; wake anyone tailing it.
    if (released) this.#notifier.notify(taskId);
  }

  async listRunnable(options: ListRunnableOptions = {}): Promise<TaskRecord[]> {
    const sql = this.#statements();
    const limit = assertLimit(options.limit, 100);
    const now = this.#now();
    return this.#guard(() => {
      // The query yields candidates (see wantsWorker); the rule, at this time, has the last word.
      // Stepping through them lazily stops the scan as soon as `limit` are accepted; the rows of a
      // principal already listed `perPrincipal` times are passed over before parsing.
      const per = options.perPrincipal ?? Number.POSITIVE_INFINITY;
      const counts = new Map<string, number>((options.excludePrincipals ?? []).map((p) => [p, per]));
      const runnable: TaskRecord[] = [];
      for (const row of sql.runnable.iterate(now) as Iterable<TaskRow>) {
        const count = counts.get(row.principal) ?? 0;
        if (count >= per) continue;
        const record = recordOf(row);
        if (!isRunnableRecord(record, now)) continue;
        counts.set(row.principal, count + 1);
        runnable.push(record);
        if (runnable.length === limit) break;
      }
      return runnable;
    });
  }

  async listLeasedOn(host: string, options: ListRunnableOptions = {}): Promise<TaskRecord[]> {
    const sql = this.#statements();
    const limit = assertLimit(options.limit, 100);
    return this.#guard(() => (sql.leasedOn.all(this.#now(), host, limit) as TaskRow[]).map(recordOf));
  }

  async claimRunnable(options: ClaimOptions): Promise<Claim[]> {
    return claimByListing(this, options);
  }

  async listTasks(options: ListTasksOptions): Promise<TaskPage> {
    const sql = this.#statements();
    const { limit, cursor, search } = taskPageRequest(options);
    const params: Record<string, string | number> = { principal: options.principal, limit: limit + 1 };
    if (options.status !== undefined) params.status = options.status;
    if (options.forkedFrom !== undefined) params.forkedFrom = options.forkedFrom;
    if (options.agent !== undefined) params.agent = options.agent;
    if (options.parentTaskId !== undefined) params.parentTaskId = options.parentTaskId;
    if (search !== undefined) params.search = search;
    if (cursor !== undefined) {
      params.createdAt = cursor.createdAt;
      params.taskId = cursor.taskId;
    }
    return this.#guard(() => {
      const statement = sql.list({
        status: options.status !== undefined,
        forkedFrom: options.forkedFrom !== undefined,
        agent: options.agent !== undefined,
        parent: options.parentTaskId !== undefined,
        roots: options.rootsOnly === true,
        search: search !== undefined,
        cursor: cursor !== undefined,
      });
      return taskPageOf(statement.all(params) as TaskRow[], limit, recordOf);
    });
  }

  async countChildren(options: CountChildrenOptions): Promise<Map<string, number>> {
    const ids = childCountIds(options);
    const sql = this.#statements();
    if (ids.length === 0) return new Map();
    return this.#guard(() => {
      const rows = sql.cached(COUNT_CHILDREN).all({ principal: options.principal, ids: JSON.stringify(ids) }) as Array<{
        id: string;
        n: number;
      }>;
      return childCountsOf(ids, new Map(rows.map((row) => [row.id, Number(row.n)])));
    });
  }

  async putBlob(blob: { digest: string; bytes: Uint8Array }): Promise<void> {
    assertBlob(blob);
    assertBlobSize(blob.bytes, this.#limits.maxBlobBytes);
    const sql = this.#statements();
    const command = { kind: "putBlob", digest: blob.digest, bytes: blob.bytes } as const;
    // Content-addressed and idempotent, so on this connection it needs no transaction of its own.
    if (this.#thread !== undefined) await this.#thread.submit(command);
    else this.#guard(() => runWrite(this.#context, sql, command, this.#now()));
  }

  async getBlob(digest: string): Promise<Uint8Array | undefined> {
    assertBlobDigest(digest);
    const sql = this.#statements();
    return this.#guard(() => {
      const row = sql.blob.get(digest) as { bytes: Uint8Array } | undefined;
      // node:sqlite returns a fresh Uint8Array per read; a plain copy drops any Buffer subclass.
      return row === undefined ? undefined : new Uint8Array(row.bytes);
    });
  }

  /**
   * A new version of a record, through the writer (its thread, or this connection's group
   * commit): the version is the name's latest plus one, read in the write transaction.
   */
  async putRecord(input: PutRecordInput): Promise<StoredRecord> {
    this.#statements();
    const { metaJson, bodyJson } = checkPutRecord(input);
    const { kind, principal, name, expectedVersion } = input;
    const record =
      expectedVersion === undefined ? { kind, principal, name } : { kind, principal, name, expectedVersion };
    const { version, createdAt } = await this.#submit({ kind: "putRecord", record, metaJson, bodyJson });
    // What was stored, read back from its text: the caller's objects are not shared.
    return storedRecordFromColumns(
      input,
      { name, version, created_at: createdAt, meta: metaJson, body: bodyJson },
      "SQLite",
    );
  }

  async getRecord(query: {
    kind: string;
    principal: string;
    name: string;
    version?: number;
  }): Promise<StoredRecord | undefined> {
    const sql = this.#statements();
    checkRecordKey(query);
    const { kind, principal, name, version } = query;
    return this.#guard((): StoredRecord | undefined => {
      const row = (
        version === undefined
          ? sql.latestRecord.get(kind, principal, name)
          : sql.recordVersion.get(kind, principal, name, version)
      ) as (RecordColumns & { body: string }) | undefined;
      return row === undefined ? undefined : storedRecordFromColumns(query, row, "SQLite");
    });
  }

  async listRecords(options: ListRecordsOptions): Promise<RecordPage> {
    const sql = this.#statements();
    const { limit, after } = recordPageRequest(options);
    return this.#guard(() => {
      // One name more than the page, to know whether another page follows.
      const rows = sql.listRecords.all({
        kind: options.kind,
        principal: options.principal,
        after: after ?? "",
        limit: limit + 1,
      }) as RecordColumns[];
      const records = rows.slice(0, limit).map((row) => recordListingFromColumns(options, row, "SQLite"));
      const last = records.at(-1);
      return rows.length > limit && last !== undefined ? { records, nextCursor: last.name } : { records };
    });
  }

  async putSnapshot(snapshot: Snapshot): Promise<void> {
    const { taskId, seq, v } = snapshot;
    await this.#submit({ kind: "putSnapshot", taskId, seq, v, stateText: snapshotStateText(snapshot) });
  }

  async latestSnapshot(taskId: string): Promise<Snapshot | undefined> {
    const sql = this.#statements();
    return this.#guard(() => {
      const row = sql.snapshot.get(taskId) as StoredSnapshotRow | undefined;
      if (row === undefined) throw new TaskNotFoundError(taskId);
      return snapshotOf({ ...row, state: row.state === null ? null : inflateSnapshot(row.state, taskId) });
    });
  }

  /** Write a log copied from another store as it was stored (see `Store.restoreTask`). */
  async restoreTask(events: readonly StoredEvent[]): Promise<TaskRecord> {
    this.#statements();
    const log = restoredLog(events);
    await this.#submit({ kind: "restore", log });
    return this.getTask(log.taskId);
  }

  async listFinished(options: ListFinishedOptions): Promise<TaskPage> {
    const sql = this.#statements();
    const request = finishedPageRequest(options);
    return this.#guard(() => listFinishedRows(sql, request));
  }

  /** Delete a finished task and its descendants in one write transaction (see `Store.deleteTask`). */
  async deleteTask(taskId: string): Promise<DeletedTask> {
    this.#statements();
    const deleted = await this.#submit({ kind: "deleteTask", taskId });
    // Watchers of a deleted task learn it is gone (their next read is `TaskNotFound`).
    for (const id of deleted.taskIds) this.#notifier.notify(id);
    return deleted;
  }

  async stats(options?: StoreStatsOptions): Promise<StoreStats> {
    const sql = this.#statements();
    const request = statsRequest(options);
    return this.#guard(() => storeStats(sql, request));
  }

  /** Incremental vacuum and a WAL checkpoint (see `Store.reclaimSpace`); free pages stay in a file made before schema 9. */
  async reclaimSpace(): Promise<ReclaimedSpace> {
    const sql = this.#statements();
    return this.#guard(() => reclaim(this.#db as DatabaseSync, sql));
  }

  /**
   * Rewrite the whole file (`VACUUM`) and switch it to incremental vacuum, so a file made before
   * schema 9 shrinks and `reclaimSpace` works on it from then on. Holds the write lock for the
   * whole rewrite (every other writer waits) and needs free disk as large as the file.
   */
  async vacuum(): Promise<ReclaimedSpace> {
    const sql = this.#statements();
    // Writes queued on this connection commit first: VACUUM cannot run inside a transaction.
    this.#writer?.drain();
    return this.#guard(() => vacuumFile(this.#db as DatabaseSync, sql));
  }

  /**
   * Close the database: writes queued commit first (a writer thread's too, then it ends). Later
   * calls fail with `StoreUnavailable`; running watches end with it.
   */
  async close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    const db = this.#db;
    if (db === undefined) return;
    // Writes waiting for the tick commit first: their callers were promised an answer.
    this.#writer?.drain();
    this.#db = undefined;
    this.#sql = undefined;
    this.#poller.stop();
    this.#checkpointsDue = undefined;
    // The thread's connection closes first: the last connection to close checkpoints the whole log
    // and removes it, as a store without the thread does.
    const checkpoints = this.#checkpoints?.stop();
    const finish = () => {
      try {
        db.close();
      } catch {
        // Closing a handle whose file failed underneath it can fail too; it is released either way.
      }
      this.#notifier.notifyAll();
    };
    if (this.#thread === undefined) {
      if (checkpoints === undefined) return finish();
      this.#closing = checkpoints.finally(finish);
      return this.#closing;
    }
    // The thread commits what it was sent, then ends; a second close waits for the same.
    this.#closing = this.#thread.close().finally(finish);
    return this.#closing;
  }
}
