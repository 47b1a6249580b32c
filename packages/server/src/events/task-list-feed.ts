/**
 * The changes of every task, for `GET /v1/tasks/stream`: one subscription to the store's
 * `onTaskChange` per process (taken while any stream is open), each changed task read once
 * (`getTask`, and its `task_created` once per task while it stays in a bounded cache) and handed,
 * as a list item, to the streams of its principal only. When the store cannot name what changed
 * (another process's commit to a SQLite file, a PostgreSQL notification gap), every stream is
 * told to list again (`resync`), at most once per `resyncMs`.
 */
import type { Store, TaskRecord } from "@sema-agent/core";
import type { TaskListItemBody } from "../schemas/tasks.ts";
import { countChildrenOf, type Prices, taskListItem } from "../tasks/task-view.ts";

/** What a stream gets from the feed. */
export interface TaskListListener {
  /** A task of the stream's principal changed: its record and its item. */
  changed(record: TaskRecord, item: TaskListItemBody): void;
  /** Tasks may have changed that nobody can name: list again. */
  resync(): void;
}

/** Tasks whose last dispatched seq is remembered (to skip notices with nothing new). */
const KNOWN_TASKS = 10_000;

/** Options of a {@link TaskListFeed}. */
export interface TaskListFeedOptions {
  /** Prices for the items' `usage.costUsd` (the server's quota prices). */
  prices?: Prices;
  /** Least milliseconds between two resyncs (default 1000). */
  resyncMs?: number;
  /** Milliseconds since the epoch (the app's clock). Default `Date.now`. */
  now?: () => number;
}

/** The process's feed of task changes for list streams (see the module's comment). */
export class TaskListFeed {
  readonly #store: Store;
  readonly #options: TaskListFeedOptions;
  readonly #listeners = new Map<string, Set<TaskListListener>>();
  /** Tasks named since the last flush. */
  readonly #pending = new Set<string>();
  /** The last seq dispatched per task (insertion order: oldest first, for eviction). */
  readonly #sent = new Map<string, number>();
  readonly #now: () => number;
  #unsubscribe: (() => void) | undefined;
  #flushing = false;
  #resyncTimer: ReturnType<typeof setTimeout> | undefined;
  #lastResync = Number.NEGATIVE_INFINITY;

  constructor(store: Store, options: TaskListFeedOptions = {}) {
    this.#store = store;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Whether the store can tell of changes at all (otherwise the route is not offered). */
  get supported(): boolean {
    return this.#store.onTaskChange !== undefined;
  }

  /** Streams subscribed now (for tests and metrics). */
  get listeners(): number {
    let count = 0;
    for (const set of this.#listeners.values()) count += set.size;
    return count;
  }

  /** Receive `principal`'s task changes until the returned function is called. */
  subscribe(principal: string, listener: TaskListListener): () => void {
    let set = this.#listeners.get(principal);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(principal, set);
    }
    set.add(listener);
    this.#unsubscribe ??= this.#store.onTaskChange?.((taskId) => this.#changed(taskId));
    return () => {
      const current = this.#listeners.get(principal);
      current?.delete(listener);
      if (current?.size === 0) this.#listeners.delete(principal);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#pending.clear();
    this.#sent.clear();
    if (this.#resyncTimer !== undefined) clearTimeout(this.#resyncTimer);
    this.#resyncTimer = undefined;
  }

  /** From the store's write path: note it, and read it later (never here). */
  #changed(taskId: string | undefined): void {
    if (taskId === undefined) {
      this.#scheduleResync();
      return;
    }
    this.#pending.add(taskId);
    if (!this.#flushing) {
      this.#flushing = true;
      queueMicrotask(() => void this.#flush());
    }
  }

  async #flush(): Promise<void> {
    try {
      while (this.#pending.size > 0) {
        const ids = [...this.#pending];
        this.#pending.clear();
        await Promise.all(ids.map((taskId) => this.#dispatch(taskId)));
      }
    } finally {
      this.#flushing = false;
    }
  }

  async #dispatch(taskId: string): Promise<void> {
    try {
      const record = await this.#store.getTask(taskId);
      const listeners = this.#listeners.get(record.principal);
      if (listeners === undefined) return;
      const sent = this.#sent.get(taskId);
      if (sent !== undefined && record.lastSeq <= sent) return;
      const children = await countChildrenOf(this.#store, [record]);
      const item = await taskListItem(this.#store, record, this.#options.prices, children.get(record.taskId));
      this.#sent.delete(taskId);
      this.#sent.set(taskId, record.lastSeq);
      if (this.#sent.size > KNOWN_TASKS) this.#sent.delete(this.#sent.keys().next().value as string);
      for (const listener of this.#listeners.get(record.principal) ?? []) listener.changed(record, item);
    } catch {
      // Gone, or the store failed: a notice is a hint, and the next change names the task again.
    }
  }

  /** Resync now, or at the end of the quiet interval when one was sent lately (one for many). */
  #scheduleResync(): void {
    if (this.#resyncTimer !== undefined) return;
    const wait = this.#lastResync + (this.#options.resyncMs ?? 1000) - this.#now();
    if (wait <= 0) {
      this.#resync();
      return;
    }
    this.#resyncTimer = setTimeout(() => {
      this.#resyncTimer = undefined;
      this.#resync();
    }, wait);
  }

  #resync(): void {
    this.#lastResync = this.#now();
    this.#sent.clear();
    for (const set of [...this.#listeners.values()]) for (const listener of [...set]) listener.resync();
  }
}
