/**
 * `MemoryStore`: the `Store` port in process memory, for tests and embedded use. Stored events are
 * deep-frozen copies, so no caller can change the log by mutating an object it passed or read.
 */

import { blobDigests } from "../core/blob-digests.ts";
import { jsonCopy } from "../core/canonical-json.ts";
import { validateEvents } from "../core/event-validation.ts";
import { EMPTY_SUMMARY, reduceSummary } from "../core/task-summary.ts";
import { claimOrderKey } from "../core/work-lane.ts";
import { newId } from "../internal/ids.ts";
import type {
  AcquireLeaseOptions,
  AppendOptions,
  Claim,
  ClaimOptions,
  CountChildrenOptions,
  CreateTaskInput,
  DeletedTask,
  Lease,
  ListFinishedOptions,
  ListRunnableOptions,
  ListTasksOptions,
  ReadOptions,
  Snapshot,
  Store,
  StoreClock,
  StoreSizeLimits,
  StoreStats,
  StoreStatsOptions,
  TaskPage,
  TaskRecord,
  UsageBucket,
  UsageQuery,
  UsageReport,
  WatchOptions,
} from "../ports/store.ts";
import {
  QuotaExceededError,
  SeqConflictError,
  StoreUnavailableError,
  TaskExistsError,
  TaskNotFoundError,
} from "../protocol/errors.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { ListRecordsOptions, PutRecordInput, RecordPage, StoredRecord } from "../protocol/records.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { claimByListing } from "./claim-by-listing.ts";
import { limitPerPrincipal } from "./fair-claims.ts";
import { MemoryRecords } from "./memory-records.ts";
import {
  assertAfterSeq,
  assertBlob,
  assertBlobDigest,
  assertLeaseAvailable,
  assertLeaseHeld,
  assertLimit,
  assertSnapshotSeq,
  assertTtl,
  childCountIds,
  childCountsOf,
  forkSourceOf,
  frozenStampedEvent,
  isAfterCursor,
  isLeaseLive,
  isoTime,
  isRunnableRecord,
  matchesTaskFilters,
  newLease,
  snapshotStateText,
  taskPageOf,
  taskPageRequest,
} from "./store-rules.ts";
import { assertBlobSize, assertEventText, sizeLimits } from "./store-size-limits.ts";
import { emptyTaskCounts, largestTasks, principalSizes, statsRequest, utf8Length } from "./store-stats.ts";
import { ChangeNotifier, watchTask } from "./tail-events.ts";
import {
  assertDeletable,
  BLOB_GRACE_MS,
  comesAfter,
  finishedPageOf,
  finishedPageRequest,
  isListedFinished,
} from "./task-deletion.ts";
import { restoredLog } from "./task-restore.ts";
import { addBucket, hourStartMs, isActiveTask, movesUsage, usageDeltas } from "./usage-counting.ts";

interface Entry {
  record: TaskRecord;
  events: StoredEvent[];
  /** The first stage of each input, by input id. */
  inputs: Map<string, StoredEvent>;
  /** The model on the task's `task_created`, which its turns' usage is counted under unless they name another. */
  model: string | undefined;
  /** The latest snapshot, its state as JSON text: the cheapest immutable copy, and it is read far less often than written. */
  snapshot?: { seq: number; v: number; stateJson: string };
}

/**
 * The {@link Store} in process memory: for tests, examples and embedded use where nothing needs to
 * survive the process. Stored events are deep-frozen copies; `watch` wakes on each append in this
 * process. Pass `now` to control its clock (leases, `at` stamps). Nothing is persisted.
 */
export class MemoryStore implements Store {
  readonly #tasks = new Map<string, Entry>();
  /** Content-addressed bytes of image and file parts, shared by every task (digest → bytes). */
  readonly #blobs = new Map<string, Uint8Array>();
  /** When each blob was last put again, bytes already here (see BLOB_GRACE_MS). */
  readonly #blobPutAt = new Map<string, number>();
  readonly #notifier = new ChangeNotifier();
  /** Usage counters: principal → `hour model` → bucket. */
  readonly #usage = new Map<string, Map<string, UsageBucket>>();
  readonly #records = new MemoryRecords();
  /** The index `countChildren` reads: parent task id → its children's ids. */
  readonly #children = new Map<string, Set<string>>();
  readonly #now: () => number;
  #closed = false;

  readonly #limits: Required<StoreSizeLimits>;

  constructor(options: StoreClock & StoreSizeLimits = {}) {
    this.#now = options.now ?? Date.now;
    this.#limits = sizeLimits("MemoryStore", options);
  }

  /** `ContentTooLarge` for an event over `maxEventBytes` of JSON. */
  #checkSizes(events: readonly TaskEvent[]): void {
    events.forEach((event, i) => {
      assertEventText(JSON.stringify(event), i, this.#limits.maxEventBytes);
    });
  }

  #open(): void {
    if (this.#closed) throw new StoreUnavailableError("the memory store is closed");
  }

  #entry(taskId: string): Entry {
    this.#open();
    const entry = this.#tasks.get(taskId);
    if (entry === undefined) throw new TaskNotFoundError(taskId);
    return entry;
  }

  /** Stamp, freeze and index events at the end of the log; the caller has validated them. */
  #commit(entry: Entry, events: readonly TaskEvent[], at = isoTime(this.#now())): StoredEvent[] {
    const record = entry.record;
    const stored: StoredEvent[] = [];
    let summary = record.summary;
    for (const event of events) {
      // One-pass deep copy and freeze: no caller can change the log through an object it holds.
      const copy = frozenStampedEvent(event, record.taskId, record.lastSeq + stored.length + 1, at);
      stored.push(copy);
      if (copy.type === "human_input" && !entry.inputs.has(copy.inputId)) entry.inputs.set(copy.inputId, copy);
      summary = reduceSummary(summary, event, copy);
    }
    entry.events.push(...stored);
    if (movesUsage(events)) this.#count(record.principal, usageDeltas(events, entry.model, Date.parse(at)));
    record.lastSeq += stored.length;
    record.updatedAt = at;
    record.summary = summary;
    this.#notifier.notify(record.taskId, record.lastSeq);
    return stored;
  }

  async createTask(input: CreateTaskInput): Promise<StoredEvent[]> {
    this.#open();
    const events: TaskEvent[] = [input.created, ...(input.more ?? [])];
    validateEvents(events);
    this.#checkSizes(events);
    const taskId = input.taskId ?? newId();
    if (this.#tasks.has(taskId)) throw new TaskExistsError(taskId);
    const { maxActiveTasks } = input;
    if (maxActiveTasks !== undefined && input.created.parentTaskId === undefined) {
      const active = this.#activeTasks(input.created.principal);
      if (active >= maxActiveTasks)
        throw new QuotaExceededError(input.created.principal, "concurrentTasks", active, maxActiveTasks);
    }
    const at = isoTime(this.#now());
    const record: TaskRecord = {
      taskId,
      principal: input.created.principal,
      lastSeq: 0,
      createdAt: at,
      updatedAt: at,
      summary: EMPTY_SUMMARY,
    };
    if (input.created.parentTaskId !== undefined) record.parentTaskId = input.created.parentTaskId;
    const entry: Entry = { record, events: [], inputs: new Map(), model: input.created.model };
    this.#tasks.set(taskId, entry);
    this.#indexChild(record);
    // Stamped at the task's createdAt, as the other stores do: a copy (sema migrate) takes its
    // createdAt from the first event's time, and the two must agree.
    return this.#commit(entry, events, at);
  }

  async getTask(taskId: string): Promise<TaskRecord> {
    return jsonCopy(this.#entry(taskId).record);
  }

  async append(taskId: string, events: TaskEvent[], options: AppendOptions): Promise<StoredEvent[]> {
    const entry = this.#entry(taskId);
    validateEvents(events);
    this.#checkSizes(events);
    if (options.leaseToken !== undefined) {
      assertLeaseHeld(taskId, entry.record.lease, options.leaseToken, this.#now());
    }
    if (options.expectedSeq !== entry.record.lastSeq) {
      throw new SeqConflictError(taskId, options.expectedSeq, entry.record.lastSeq);
    }
    if (events.length === 0) return [];
    return this.#commit(entry, events);
  }

  async usage(query: UsageQuery): Promise<UsageReport> {
    this.#open();
    const since = hourStartMs(query.sinceMs);
    const buckets = [...(this.#usage.get(query.principal)?.values() ?? [])]
      .filter((bucket) => Date.parse(bucket.hour) >= since)
      .map((bucket) => ({ ...bucket }))
      .sort((a, b) => a.hour.localeCompare(b.hour) || a.model.localeCompare(b.model));
    return { buckets, activeTasks: this.#activeTasks(query.principal) };
  }

  #activeTasks(principal: string): number {
    let active = 0;
    for (const { record } of this.#tasks.values()) if (record.principal === principal && isActiveTask(record)) active++;
    return active;
  }

  #count(principal: string, deltas: readonly UsageBucket[]): void {
    let counters = this.#usage.get(principal);
    if (counters === undefined) {
      counters = new Map();
      this.#usage.set(principal, counters);
    }
    for (const delta of deltas) {
      const key = `${delta.hour} ${delta.model}`;
      const bucket = counters.get(key);
      if (bucket === undefined) counters.set(key, { ...delta });
      else addBucket(bucket, delta);
    }
  }

  async findInput(taskId: string, inputId: string): Promise<StoredEvent | undefined> {
    return this.#entry(taskId).inputs.get(inputId);
  }

  async read(taskId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    const { events } = this.#entry(taskId);
    const afterSeq = assertAfterSeq(options.afterSeq);
    const limit =
      options.limit === undefined ? events.length : assertLimit(options.limit, events.length, Number.MAX_SAFE_INTEGER);
    // seq n sits at index n - 1: the log is gapless.
    return events.slice(afterSeq, afterSeq + limit);
  }

  watch(taskId: string, options: WatchOptions = {}): AsyncIterable<StoredEvent> {
    return watchTask(
      this,
      taskId,
      options,
      (signal) => this.#notifier.wait(taskId, signal),
      () => this.#notifier.lastKnown(taskId),
    );
  }

  async acquireLease(taskId: string, options: AcquireLeaseOptions): Promise<Lease> {
    const entry = this.#entry(taskId);
    assertTtl(options.ttlMs);
    const now = this.#now();
    assertLeaseAvailable(taskId, entry.record.lease, options.holder, now, options.replaceHolderId);
    const lease = newLease(taskId, options.holder, now + options.ttlMs);
    entry.record.lease = lease;
    return jsonCopy(lease);
  }

  async renewLease(taskId: string, token: string, ttlMs: number): Promise<Lease> {
    const entry = this.#entry(taskId);
    assertTtl(ttlMs);
    const now = this.#now();
    const lease = entry.record.lease;
    assertLeaseHeld(taskId, lease, token, now);
    lease.expiresAt = new Date(now + ttlMs).toISOString();
    return jsonCopy(lease);
  }

  async releaseLease(taskId: string, token: string): Promise<void> {
    const entry = this.#entry(taskId);
    if (entry.record.lease?.token === token) {
      delete entry.record.lease;
      // A release can make a task runnable for others; wake anyone tailing it.
      this.#notifier.notify(taskId);
    }
  }

  async listRunnable(options: ListRunnableOptions = {}): Promise<TaskRecord[]> {
    this.#open();
    const limit = assertLimit(options.limit, 100);
    const now = this.#now();
    // People first (`claimOrderKey`): a task a person waits for has a head start on routine ones.
    const kept: Array<{ record: TaskRecord; key: number }> = [];
    for (const { record } of this.#tasks.values())
      if (isRunnableRecord(record, now)) kept.push({ record, key: claimOrderKey(record.updatedAt, record.summary) });
    kept.sort((a, b) => a.key - b.key);
    return jsonCopy(
      limitPerPrincipal(
        kept.map((entry) => entry.record),
        options,
        limit,
      ),
    );
  }

  async listLeasedOn(host: string, options: ListRunnableOptions = {}): Promise<TaskRecord[]> {
    return this.#oldestFirst(
      options,
      (record, now) => isLeaseLive(record.lease, now) && record.lease.holder.host === host,
    );
  }

  /** Copies of the records `keep` accepts, least recently active first, within `options`' limits. */
  #oldestFirst(options: ListRunnableOptions, keep: (record: TaskRecord, now: number) => boolean): TaskRecord[] {
    this.#open();
    const limit = assertLimit(options.limit, 100);
    const now = this.#now();
    const kept: TaskRecord[] = [];
    for (const { record } of this.#tasks.values()) if (keep(record, now)) kept.push(record);
    kept.sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
    return jsonCopy(limitPerPrincipal(kept, options, limit));
  }

  async claimRunnable(options: ClaimOptions): Promise<Claim[]> {
    return claimByListing(this, options);
  }

  onTaskChange(listener: (taskId: string | undefined) => void): () => void {
    return this.#notifier.onChange(listener);
  }

  async listTasks(options: ListTasksOptions): Promise<TaskPage> {
    this.#open();
    const { limit, cursor, search } = taskPageRequest(options);
    const matching: TaskRecord[] = [];
    for (const { record, events } of this.#tasks.values()) {
      if (record.principal !== options.principal) continue;
      if (options.status !== undefined && record.summary.status !== options.status) continue;
      if (options.forkedFrom !== undefined && forkSourceOf(record.summary) !== options.forkedFrom) continue;
      if (cursor !== undefined && !isAfterCursor(record, cursor)) continue;
      const created = events[0];
      if (created?.type !== "task_created" || !matchesTaskFilters(created, options, search)) continue;
      matching.push(record);
    }
    matching.sort((a, b) => (isAfterCursor(a, b) ? 1 : isAfterCursor(b, a) ? -1 : 0));
    return taskPageOf(matching, limit, jsonCopy);
  }

  async countChildren(options: CountChildrenOptions): Promise<Map<string, number>> {
    this.#open();
    const ids = childCountIds(options);
    const found = new Map<string, number>();
    for (const taskId of ids) {
      let count = 0;
      for (const child of this.#children.get(taskId) ?? [])
        if (this.#tasks.get(child)?.record.principal === options.principal) count++;
      if (count > 0) found.set(taskId, count);
    }
    return childCountsOf(ids, found);
  }

  #indexChild(record: TaskRecord): void {
    if (record.parentTaskId === undefined) return;
    const children = this.#children.get(record.parentTaskId) ?? new Set<string>();
    children.add(record.taskId);
    this.#children.set(record.parentTaskId, children);
  }

  #unindexChild(record: TaskRecord): void {
    if (record.parentTaskId === undefined) return;
    const children = this.#children.get(record.parentTaskId);
    children?.delete(record.taskId);
    if (children?.size === 0) this.#children.delete(record.parentTaskId);
  }

  async putBlob(blob: { digest: string; bytes: Uint8Array }): Promise<void> {
    this.#open();
    assertBlob(blob);
    assertBlobSize(blob.bytes, this.#limits.maxBlobBytes);
    // A copy: the caller keeps its array, and may change it.
    if (!this.#blobs.has(blob.digest)) this.#blobs.set(blob.digest, blob.bytes.slice());
    // An upload of bytes already here starts their grace period (see BLOB_GRACE_MS).
    else this.#blobPutAt.set(blob.digest, this.#now());
  }

  async getBlob(digest: string): Promise<Uint8Array | undefined> {
    this.#open();
    assertBlobDigest(digest);
    return this.#blobs.get(digest)?.slice();
  }

  async putRecord(input: PutRecordInput): Promise<StoredRecord> {
    this.#open();
    return this.#records.put(input, isoTime(this.#now()));
  }

  async getRecord(query: { kind: string; principal: string; name: string; version?: number }) {
    this.#open();
    return this.#records.get(query);
  }

  async listRecords(options: ListRecordsOptions): Promise<RecordPage> {
    this.#open();
    return this.#records.list(options);
  }

  async putSnapshot(snapshot: Snapshot): Promise<void> {
    const entry = this.#entry(snapshot.taskId);
    assertSnapshotSeq(snapshot.seq, entry.record.lastSeq);
    if (entry.snapshot === undefined || snapshot.seq >= entry.snapshot.seq) {
      entry.snapshot = { seq: snapshot.seq, v: snapshot.v, stateJson: snapshotStateText(snapshot) };
    }
  }

  async latestSnapshot(taskId: string): Promise<Snapshot | undefined> {
    const { snapshot } = this.#entry(taskId);
    if (snapshot === undefined) return undefined;
    return { taskId, seq: snapshot.seq, v: snapshot.v, state: JSON.parse(snapshot.stateJson) as JsonValue };
  }

  async restoreTask(events: readonly StoredEvent[]): Promise<TaskRecord> {
    this.#open();
    const log = restoredLog(events);
    this.#checkSizes(log.bodies);
    if (this.#tasks.has(log.taskId)) throw new TaskExistsError(log.taskId);
    const record: TaskRecord = {
      taskId: log.taskId,
      principal: log.created.principal,
      lastSeq: log.bodies.length,
      createdAt: log.createdAt,
      updatedAt: log.updatedAt,
      summary: log.summary,
    };
    if (log.created.parentTaskId !== undefined) record.parentTaskId = log.created.parentTaskId;
    const entry: Entry = { record, events: [], inputs: new Map(), model: log.created.model };
    log.bodies.forEach((body, i) => {
      const copy = frozenStampedEvent(body, log.taskId, i + 1, log.ats[i] ?? log.createdAt);
      entry.events.push(copy);
      if (copy.type === "human_input" && !entry.inputs.has(copy.inputId)) entry.inputs.set(copy.inputId, copy);
    });
    this.#tasks.set(log.taskId, entry);
    this.#indexChild(record);
    this.#notifier.notify(log.taskId, record.lastSeq);
    return jsonCopy(record);
  }

  async listFinished(options: ListFinishedOptions): Promise<TaskPage> {
    this.#open();
    const request = finishedPageRequest(options);
    const matching: TaskRecord[] = [];
    for (const { record } of this.#tasks.values()) if (isListedFinished(record, request)) matching.push(record);
    matching.sort((a, b) => (comesAfter(a, b) ? 1 : comesAfter(b, a) ? -1 : 0));
    return finishedPageOf(matching, request.limit, jsonCopy);
  }

  async deleteTask(taskId: string): Promise<DeletedTask> {
    const entry = this.#entry(taskId);
    const ancestors: TaskRecord[] = [];
    for (let parent = entry.record.parentTaskId; parent !== undefined; ) {
      const found = this.#tasks.get(parent)?.record;
      if (found === undefined) break;
      ancestors.push(found);
      parent = found.parentTaskId;
    }
    const family = [entry, ...this.#descendants(taskId)];
    assertDeletable(
      { task: entry.record, ancestors, descendants: family.slice(1).map((member) => member.record) },
      this.#now(),
    );
    const deleted: DeletedTask = { taskIds: [], events: 0, logBytes: 0, blobs: [] };
    const digests = new Set<string>();
    for (const member of family) {
      deleted.taskIds.push(member.record.taskId);
      deleted.events += member.events.length;
      deleted.logBytes += logBytesOf(member.events);
      for (const event of member.events) for (const digest of blobDigests(event)) digests.add(digest);
      this.#tasks.delete(member.record.taskId);
      this.#unindexChild(member.record);
    }
    // A blob goes only when no task left references it; the rest stay for those that do.
    for (const { events } of this.#tasks.values()) {
      if (digests.size === 0) break;
      for (const event of events) for (const digest of blobDigests(event)) digests.delete(digest);
    }
    const graceFrom = this.#now() - BLOB_GRACE_MS;
    for (const digest of [...digests].sort()) {
      // Put within the grace period: an event naming it may be on its way (see BLOB_GRACE_MS).
      if ((this.#blobPutAt.get(digest) ?? Number.NEGATIVE_INFINITY) > graceFrom) continue;
      this.#blobPutAt.delete(digest);
      if (this.#blobs.delete(digest)) deleted.blobs.push(digest);
    }
    for (const id of deleted.taskIds) this.#notifier.notify(id);
    return deleted;
  }

  /** The task's children, theirs …, parents before children. */
  #descendants(taskId: string): Entry[] {
    const found: Entry[] = [];
    const queue = [taskId];
    for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
      for (const entry of this.#tasks.values()) {
        if (entry.record.parentTaskId !== parent) continue;
        found.push(entry);
        queue.push(entry.record.taskId);
      }
    }
    return found;
  }

  async stats(options?: StoreStatsOptions): Promise<StoreStats> {
    this.#open();
    const request = statsRequest(options);
    const tasks = emptyTaskCounts();
    const sizes = [];
    for (const { record, events } of this.#tasks.values()) {
      if (request.principal !== undefined && record.principal !== request.principal) continue;
      tasks[record.summary.status]++;
      if (request.events) {
        const { taskId, principal } = record;
        sizes.push({
          taskId,
          principal,
          status: record.summary.status,
          events: events.length,
          logBytes: logBytesOf(events),
        });
      }
    }
    let blobBytes = 0;
    for (const bytes of this.#blobs.values()) blobBytes += bytes.byteLength;
    const stats: StoreStats = { tasks, blobs: this.#blobs.size, blobBytes };
    if (request.events) {
      stats.events = sizes.reduce((sum, size) => sum + size.events, 0);
      stats.logBytes = sizes.reduce((sum, size) => sum + size.logBytes, 0);
      stats.largest = largestTasks(sizes, request.largest);
      stats.principals = principalSizes(sizes);
    }
    return stats;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#notifier.notifyAll();
  }
}

/** Bytes of the events' own keys as JSON text, as the SQL stores keep each event's body. */
function logBytesOf(events: readonly StoredEvent[]): number {
  let bytes = 0;
  for (const { taskId: _taskId, seq: _seq, at: _at, ...body } of events) bytes += utf8Length(JSON.stringify(body));
  return bytes;
}
