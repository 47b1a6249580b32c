/**
 * The `Store` port: the session log, leases, snapshots and the task index. The harness is written
 * against this interface only; adapters (memory, SQLite, PostgreSQL) implement it and all pass the
 * shared conformance suite on `@sema-agent/core/testing`.
 */

import type { JsonValue } from "../protocol/json.ts";
import type { ListRecordsOptions, PutRecordInput, RecordPage, StoredRecord } from "../protocol/records.ts";
import type { LeaseHolder, StoredEvent, TaskCreatedEvent, TaskEvent } from "../protocol/task-event.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";
import type {
  DeletedTask,
  ListFinishedOptions,
  ReclaimedSpace,
  StoreStats,
  StoreStatsOptions,
} from "./store-operations.ts";

export type * from "./store-operations.ts";

/** A task as the index knows it: identity, ownership and the summary folded from its events. */
export interface TaskRecord {
  taskId: string;
  principal: string;
  parentTaskId?: string;
  /** Seq of the last event; the `expectedSeq` for the next append. */
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  summary: TaskSummary;
  /** The live or expired lease, if one was taken and not released. */
  lease?: Lease;
}

/** Who runs the task's current leg, until when. */
export interface Lease {
  taskId: string;
  /** Secret to the holder; appends and renewals under the lease present it. */
  token: string;
  holder: LeaseHolder;
  /** ISO-8601, by the store's clock. */
  expiresAt: string;
}

/** What `createTask` writes: the task's id (optional) and its first events, in one transaction. */
export interface CreateTaskInput {
  /** Defaults to a fresh time-ordered id. */
  taskId?: string;
  /** The first event of the log (seq 1). Its `principal` and `parentTaskId` index the task. */
  created: TaskCreatedEvent;
  /** Further events appended in the same transaction (seq 2 …), e.g. the objective's input. */
  more?: TaskEvent[];
  /**
   * Refuse the task (`QuotaExceeded`, quota `concurrentTasks`, nothing written) when its principal
   * already has this many active tasks (see {@link UsageReport.activeTasks}). Checked and written
   * atomically: two creations racing on any number of processes never both pass the last slot.
   * Only for stores with `usage`; a root task only (a child is part of its parent's run).
   */
  maxActiveTasks?: number;
}

/**
 * Tokens one principal's tasks spent on one model in one hour (UTC), as the store counted them:
 * every `model_turn` appended adds its usage to the bucket of the hour the store stamped it, in
 * the same transaction as the turn. The model is the turn's `model`, else the task's.
 */
export interface UsageBucket {
  /** The hour's start, ISO-8601 (`2026-12-01T17:00:00.000Z`). */
  hour: string;
  model: string;
  inputTokens: number;
  /** Of `inputTokens`, those the provider read from its cache. */
  cachedInputTokens: number;
  outputTokens: number;
  /** Model turns counted. */
  turns: number;
}

/** A principal's usage: its hourly buckets since a time, and how many of its tasks are active. */
export interface UsageReport {
  /** Buckets whose hour starts at or after the query's `sinceMs` (rounded down to its hour), oldest first. */
  buckets: UsageBucket[];
  /**
   * Root tasks (no parent) of the principal that are active: created and not yet started, or
   * with a leg running. Parked and finished tasks are not counted.
   */
  activeTasks: number;
}

/** Whose usage `usage` reads, and from when. */
export interface UsageQuery {
  principal: string;
  /** Milliseconds since the epoch; the bucket of the hour that contains it is the first returned. */
  sinceMs: number;
}

/** The conditions of an append: the seq the caller last saw and, for a leg, its lease. */
export interface AppendOptions {
  /** The seq of the last event the caller has seen; the append fails with `SeqConflict` otherwise. */
  expectedSeq: number;
  /** When given, the append fails with `LeaseLost` unless this lease is live. */
  leaseToken?: string;
  /**
   * The writer's lane (`WriteLane` of `@sema-agent/core/store-kit`): `person` when a person waits
   * for what follows this append (a new task's first step), `attended` when a person's word arrived
   * during the leg and this append comes before the model request that carries it. A store that
   * batches writes runs `attended` writes first, then `person` ones ahead of the routine ones queued
   * before them; it also takes the lane from the events themselves (`writeLaneOf`), so callers need
   * not say it. A store with two lanes treats `attended` as `person`. Default `routine`.
   */
  lane?: "attended" | "person" | "routine";
}

/** Which stored events `read` returns: those after a seq, at most a limit. */
export interface ReadOptions {
  /** Return events with `seq > afterSeq`. Default 0 (from the start). */
  afterSeq?: number;
  /** At most this many events. Default: all. */
  limit?: number;
  /**
   * The reader's lane, as `AppendOptions.lane`: a leg a person waits on reads in their lane. A
   * store that queues reads (PostgreSQL with group commit) runs them ahead of the routine reads
   * queued; one that reads at once ignores it. Default `routine`.
   */
  lane?: "attended" | "person" | "routine";
}

/** Where a `watch` starts and how it is stopped. */
export interface WatchOptions {
  /** Deliver every event with `seq > afterSeq`, stored ones first, then live ones, each once, in order. */
  afterSeq?: number;
  /** Aborting ends the iteration cleanly. */
  signal?: AbortSignal;
}

/** Who takes a lease and for how long (`ttlMs`, by the store's clock). */
export interface AcquireLeaseOptions {
  holder: LeaseHolder;
  /** How long the lease lasts, by the store's clock (a positive number of ms; `InvalidInput` otherwise). */
  ttlMs: number;
  /**
   * Take the lease even while it is live, but only from this holder (compare-and-swap): for a
   * host that established the holder is dead (a process on the same machine that no longer exists).
   */
  replaceHolderId?: string;
}

/**
 * One page of a principal's tasks: which principal, optional filters (status, fork source, agent,
 * objective text, parent), the page's cursor and size (default 50, at most 1000). Filters combine
 * with AND.
 */
export interface ListTasksOptions {
  /** Whose tasks: a listing never crosses principals. */
  principal: string;
  /** Only tasks whose summary has this status. */
  status?: TaskSummary["status"];
  /**
   * Only the forks (and imports) of this task: tasks whose `summary.forkedFrom.taskId` is this
   * id, still only the `principal`'s. A task with no forks lists none.
   */
  forkedFrom?: string;
  /** Only tasks whose `task_created` names this agent. */
  agent?: string;
  /**
   * Only tasks whose objective contains this text, ignoring case (both lowered with
   * `toLowerCase`): within the objective's first `OBJECTIVE_SEARCH_CHARS` characters (store-kit),
   * which is what the stores keep for the search. 1 to that many characters (`InvalidInput` otherwise).
   */
  objectiveContains?: string;
  /** Only the children of this task. `InvalidInput` with `rootsOnly`. */
  parentTaskId?: string;
  /** Only tasks without a parent. */
  rootsOnly?: boolean;
  /** Tasks are listed newest first; `cursor` is the `nextCursor` of the previous page. */
  cursor?: string;
  limit?: number;
}

/**
 * Which tasks `countChildren` counts the children of: at most `MAX_CHILD_COUNT_IDS` ids
 * (store-kit), of one principal (a count never crosses principals).
 */
export interface CountChildrenOptions {
  /** Whose tasks: only children of this principal are counted. */
  principal: string;
  /** The parents asked about (a page of a listing, say); repeats are counted once. */
  taskIds: readonly string[];
}

/** One page of `listTasks`, newest first. */
export interface TaskPage {
  tasks: TaskRecord[];
  /** Present when more tasks follow. */
  nextCursor?: string;
}

/** Bounds on a listing of runnable (or leased) tasks: how many, how many per principal, and whose to skip. */
export interface ListRunnableOptions {
  limit?: number;
  /** At most this many tasks of any one principal (the oldest of each), so others are listed too. */
  perPrincipal?: number;
  /** No tasks of these principals. */
  excludePrincipals?: readonly string[];
}

/**
 * Claims shared fairly between principals: each next task comes from the principal with the
 * fewest tasks held (`held` plus those this claim took so far), the least recently active first
 * among equals and within a principal; a principal at `maxPerPrincipal` gets none.
 */
export interface ClaimFairness {
  /** Tasks each principal already holds (e.g. runs in the claiming worker): principal → count. */
  held?: Readonly<Record<string, number>>;
  /** No more tasks for a principal holding this many. Default: no cap. */
  maxPerPrincipal?: number;
}

/**
 * What `claimRunnable` takes: the leases' holder and time to live, how many tasks, which to skip, and
 * whether to share them fairly between principals.
 */
export interface ClaimOptions {
  /** Who takes the leases. */
  holder: LeaseHolder;
  /** How long each lease lasts, by the store's clock (a positive number of ms). */
  ttlMs: number;
  /** At most this many tasks. Default 1. */
  limit?: number;
  /** Tasks not to claim (e.g. ones naming an agent this worker does not have). */
  exclude?: readonly string[];
  /** Share the claim between principals; without it, in the runnable order whoever owns the task. */
  fairness?: ClaimFairness;
}

/** A runnable task a worker now holds the lease of. */
export interface Claim {
  task: TaskRecord;
  lease: Lease;
}

/** A folded state stored at a seq, so a resume folds only what came after. */
export interface Snapshot {
  taskId: string;
  seq: number;
  /** Schema version of `state`; a reader that does not know it folds from scratch instead. */
  v: number;
  /** The folded state as JSON (`stateToJson`); restored with `stateFromJson` when `v` is known. */
  state: JsonValue;
  /**
   * Given on a put only: exactly `JSON.stringify(state)`, when the writer has it already (the
   * harness builds it without serializing the whole transcript again); a store writes it instead
   * of serializing `state` itself. Never part of what `latestSnapshot` returns.
   */
  stateJson?: string;
}

/** Options common to every adapter. */
export interface StoreClock {
  /** Milliseconds since the epoch; leases expire and `at` stamps by it. Default `Date.now`. */
  now?: () => number;
}

/**
 * The storage port: one task's session log (append-only, conditional on the last seq), its lease, its
 * latest snapshot and the index of tasks by principal and runnability. The harness, workers and
 * servers use nothing else; `MemoryStore`, `SqliteStore` and `PostgresStore` implement it, and
 * `runStoreConformance` (on `@sema-agent/core/testing/conformance`) checks an implementation.
 * Failures are typed errors (`TaskNotFound`, `SeqConflict`, `LeaseHeld`, `LeaseLost`,
 * `InvalidEvent`, `StoreUnavailable`, …).
 */
export interface Store {
  /** Create a task with its first events. `TaskExists` if the id is taken. Returns the stored events. */
  createTask(input: CreateTaskInput): Promise<StoredEvent[]>;
  /** The task's record. `TaskNotFound` if there is none. */
  getTask(taskId: string): Promise<TaskRecord>;
  /**
   * Append events atomically (all or none) and conditionally (`expectedSeq`). Each is validated
   * first (`InvalidEvent` with the failing path, nothing written). Returns the stamped events.
   */
  append(taskId: string, events: TaskEvent[], options: AppendOptions): Promise<StoredEvent[]>;
  /** Stored events in seq order. */
  read(taskId: string, options?: ReadOptions): Promise<StoredEvent[]>;
  /**
   * The first recorded stage of input `inputId` (its earliest `human_input` event), if any: how
   * an idempotent send finds out it was already sent, without reading the log. `TaskNotFound`
   * if there is no such task.
   */
  findInput(taskId: string, inputId: string): Promise<StoredEvent | undefined>;
  /** A live tail: stored events after `afterSeq`, then new ones as they are appended. */
  watch(taskId: string, options?: WatchOptions): AsyncIterable<StoredEvent>;

  /** Take the lease. `LeaseHeld` if another holder's lease is live; an expired one is taken over. */
  acquireLease(taskId: string, options: AcquireLeaseOptions): Promise<Lease>;
  /** Extend a live lease. `LeaseLost` if it expired, was released or taken over. */
  renewLease(taskId: string, token: string, ttlMs: number): Promise<Lease>;
  /** Give the lease up. A no-op if it is no longer held by `token`. */
  releaseLease(taskId: string, token: string): Promise<void>;

  /**
   * Tasks a worker should pick up: pending work and no live lease, or a lease that expired mid-leg.
   * People first: in `claimOrderKey` order (store-kit), the least recently active first, a task a
   * person waits for (`laneOfSummary`: a new task, a person's input, a decided approval, a resume)
   * counted as active `PERSON_HEAD_START_MS` earlier than it was.
   */
  listRunnable(options?: ListRunnableOptions): Promise<TaskRecord[]>;
  /**
   * Tasks whose lease is live and held by a holder on `host` (its `LeaseHolder.host`), oldest
   * activity first, at most `limit` (default 100): a worker starting on a machine takes over those
   * whose process died (`holderDiedHere`) instead of waiting for their leases to expire.
   */
  listLeasedOn(host: string, options?: ListRunnableOptions): Promise<TaskRecord[]>;
  /**
   * Take the leases of up to `limit` runnable tasks at once, atomically per task: two workers
   * claiming at the same time never get the same task, and neither waits for the other's rows.
   * Tasks are taken in `listRunnable`'s order (people first), shared between principals first
   * when `fairness` is given.
   */
  claimRunnable(options: ClaimOptions): Promise<Claim[]>;
  /**
   * Optional: call `listener` when a task may have become runnable, whichever process made it so
   * (created, given work while parked, released with work pending). Workers then claim at once
   * instead of at their next poll; a missed call only delays the claim until that poll.
   * Returns the unsubscribe function.
   */
  onRunnable?(listener: (taskId: string) => void): () => void;
  /**
   * Optional: call `listener` after a task was created or its log grew (so its record changed),
   * with its id, whichever process wrote it where the store hears of it (PostgreSQL: every node,
   * by notification; SQLite and memory: this store's own writes). With `undefined` when tasks
   * may have changed that the store cannot name (another connection committed to a SQLite file;
   * PostgreSQL's notification connection came back after a gap): the listener reads again what it
   * cares about. Called synchronously from the write's path: it must be cheap and must not throw.
   * A task may be named again with nothing new. Returns the unsubscribe function.
   */
  onTaskChange?(listener: (taskId: string | undefined) => void): () => void;
  /** One principal's tasks, newest first. */
  listTasks(options: ListTasksOptions): Promise<TaskPage>;
  /**
   * How many children (tasks whose `parentTaskId` it is) each of `taskIds` has among the
   * principal's tasks: every id asked is in the map, 0 when it has none or is unknown. One indexed
   * query however many ids (a listing shows "Children (3)" only where there are children);
   * `InvalidInput` for more than `MAX_CHILD_COUNT_IDS` ids. A fork is not a child (it is a root:
   * `listTasks({ forkedFrom })` lists forks).
   */
  countChildren?(options: CountChildrenOptions): Promise<Map<string, number>>;

  /**
   * Store the bytes of an image or file part under `digest`, the lowercase-hex SHA-256 of
   * `bytes`, which the caller computed. Content-addressed, so idempotent: storing the same bytes
   * again is a no-op, and one copy serves every task that references it. Optional on the port: a
   * store without a blob table refuses image and file parts (`ContentUnsupported` at the ingress).
   */
  putBlob?(blob: { digest: string; bytes: Uint8Array }): Promise<void>;
  /** The bytes stored under `digest`, or `undefined`. Present exactly when `putBlob` is. */
  getBlob?(digest: string): Promise<Uint8Array | undefined>;

  /**
   * Store a folded state at `snapshot.seq`, so a later resume folds only the events after it. The
   * seq must be within the log (`InvalidInput` otherwise); only the latest snapshot is kept, so one
   * older than the stored one is ignored.
   */
  putSnapshot(snapshot: Snapshot): Promise<void>;
  /** The snapshot with the highest seq, if any. */
  latestSnapshot(taskId: string): Promise<Snapshot | undefined>;

  /**
   * Optional (quotas need it): a principal's counted usage (see {@link UsageBucket}) and active
   * tasks. A store that has it counts every `model_turn` in the transaction that appends it, and
   * honours `CreateTaskInput.maxActiveTasks`.
   */
  usage?(query: UsageQuery): Promise<UsageReport>;

  /**
   * Optional (evaluation datasets and experiments need it; present together with `getRecord` and
   * `listRecords`): add a version of a principal's named record. Versions run from 1 per name and
   * are never overwritten; with `expectedVersion`, the put is conditional (`RecordConflict`). The
   * store stamps `createdAt`.
   */
  putRecord?(input: PutRecordInput): Promise<StoredRecord>;
  /** A record's latest version, or `version`; `undefined` when there is none for this principal. */
  getRecord?(query: {
    kind: string;
    principal: string;
    name: string;
    version?: number;
  }): Promise<StoredRecord | undefined>;
  /** A principal's records of one kind: the latest version of each name, in name order, without bodies. */
  listRecords?(options: ListRecordsOptions): Promise<RecordPage>;

  /**
   * Optional (retention needs it, with `deleteTask`): finished root tasks (no parent) of every
   * principal, or of one, last changed before a time, oldest change first, a page at a time.
   */
  listFinished?(options: ListFinishedOptions): Promise<TaskPage>;
  /**
   * Optional: delete a finished task whole, with its descendants, in one transaction: their
   * events, summaries, snapshots, input index and the blobs no other task references. Usage
   * counters are totals per principal and hour, so they keep what the task spent. `TaskLive`
   * (nothing deleted) when the task or a descendant is not finished, has work pending or a live
   * lease, or an ancestor is live; `TaskNotFound` when there is no such task.
   */
  deleteTask?(taskId: string): Promise<DeletedTask>;
  /**
   * Optional: give the space deleted tasks took back to the file system where the store can
   * (SQLite: incremental vacuum and a WAL checkpoint); a no-op where the database does it itself.
   */
  reclaimSpace?(): Promise<ReclaimedSpace>;
  /**
   * Optional (`sema migrate` needs it): write a task's log exactly as another store stored it,
   * in one transaction: ids, seqs, `at` stamps and bodies as given, the summary and input index
   * rebuilt, no lease, no usage counted (the source counted it). The task's `createdAt` is its
   * first event's `at`, its `updatedAt` its last's. `TaskExists` if the id is taken;
   * `InvalidInput` / `InvalidEvent` for a log that is not one task's, gapless, valid log.
   */
  restoreTask?(events: readonly StoredEvent[]): Promise<TaskRecord>;
  /** Optional: how big the store is (see {@link StoreStats}). */
  stats?(options?: StoreStatsOptions): Promise<StoreStats>;

  /** Release resources. Every later call fails with `StoreUnavailable`. */
  close(): Promise<void>;
}
