/**
 * The live tail every store adapter's `watch` is built on: read what is stored after a position,
 * then wait for a change signal (an in-process notification, a database NOTIFY, or a poll timer)
 * and read again. Each event is delivered exactly once and in order, because every delivery comes
 * from a read after the last delivered seq; a lost or early signal only delays, never loses.
 */

import { abortCheaply } from "../internal/abort.ts";
import type { Store, WatchOptions } from "../ports/store.ts";
import type { StoredEvent } from "../protocol/task-event.ts";
import { assertAfterSeq } from "./store-rules.ts";

/** What `tailEvents` needs of a store: a read after a seq, and a signal that something may have changed. */
export interface TailSource {
  /** Stored events with `seq > afterSeq`, in order, at most `limit`. */
  read(afterSeq: number, limit: number): Promise<StoredEvent[]>;
  /**
   * Resolve when something may have been appended (or after `pollMs` at most), or when `signal`
   * aborts. Registering the waiter happens before the read that follows it, so nothing slips by.
   */
  changed(signal: AbortSignal): Promise<void>;
  /**
   * The last seq the store knows was appended (its own appends and those it was told of), when it
   * knows one it can stand by: a tail starting there skips its first read and waits. Whatever is
   * appended later wakes it; a store that may have missed a change must answer undefined.
   */
  lastKnown?(): number | undefined;
}

/**
 * A store's `watch`: `options` checked at the call (a bad `afterSeq` throws there, not on the
 * first iteration), reads through the store's own `read`, waits on its change signal.
 */
export function watchTask(
  store: Pick<Store, "read">,
  taskId: string,
  options: WatchOptions,
  changed: (signal: AbortSignal) => Promise<void>,
  lastKnown?: () => number | undefined,
): AsyncIterable<StoredEvent> {
  const afterSeq = assertAfterSeq(options.afterSeq);
  const source: TailSource = { read: (seq, limit) => store.read(taskId, { afterSeq: seq, limit }), changed };
  if (lastKnown !== undefined) source.lastKnown = lastKnown;
  return tailEvents(source, afterSeq, options.signal);
}

/** Tasks whose last notified seq a `ChangeNotifier` keeps (the least recently notified go first). */
const KNOWN_TASKS = 100_000;

/** Upper bound on events fetched per read while catching up. */
const PAGE = 1000;

/**
 * Yield every event after `afterSeq`, stored then live, until `signal` aborts (which ends the
 * iteration cleanly). Errors from the source (a closed store) propagate to the consumer.
 */
export async function* tailEvents(
  source: TailSource,
  afterSeq: number,
  signal?: AbortSignal,
): AsyncGenerator<StoredEvent> {
  const local = new AbortController();
  const onAbort = () => abortCheaply(local);
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) abortCheaply(local);
  let seq = afterSeq;
  // A tail that starts where the store's knowledge ends has nothing to read yet: a leg's step
  // watcher, armed for every step of every leg, then costs no read (at 10,000 live legs, 7% of
  // the CPU on SQLite, and a query each on PostgreSQL). After a wake it always reads.
  let first = source.lastKnown !== undefined;
  try {
    while (!local.signal.aborted) {
      // Arm the waiter before reading, so an append landing between the read and the wait wakes us.
      const changed = source.changed(local.signal);
      const skip = first && source.lastKnown?.() === seq;
      first = false;
      let page = skip ? [] : await source.read(seq, PAGE);
      while (page.length > 0) {
        for (const event of page) {
          if (local.signal.aborted) return;
          seq = event.seq;
          yield event;
        }
        page = page.length === PAGE ? await source.read(seq, PAGE) : [];
      }
      await changed;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    abortCheaply(local);
  }
}

/**
 * An in-process change notifier per task: appends call `notify`, tails `wait`. Waiters resolve on
 * the next notify, on abort, or after `pollMs` (so changes made by another process are seen too).
 */
export class ChangeNotifier {
  readonly #waiters = new Map<string, Set<() => void>>();
  /** The last seq notified per task, for `lastKnown`: bounded, so a long-lived store keeps no id forever. */
  readonly #known = new Map<string, number>();
  /** `onChange` listeners: told of every notify, whatever task (see `Store.onTaskChange`). */
  readonly #changes = new Set<(taskId: string | undefined) => void>();

  /**
   * Wake every waiter of `taskId` (an append to it happened); each waiter is woken once. With the
   * append's last `seq`, a notice of what was notified already (a store's own append, heard again
   * from the database) wakes nobody.
   */
  notify(taskId: string, seq?: number): void {
    if (seq !== undefined) {
      const known = this.#known.get(taskId);
      if (known !== undefined && seq <= known) return;
      this.#known.delete(taskId);
      this.#known.set(taskId, seq);
      if (this.#known.size > KNOWN_TASKS) this.#known.delete(this.#known.keys().next().value as string);
    } else this.#known.delete(taskId);
    this.#tell(taskId);
    const waiters = this.#waiters.get(taskId);
    if (waiters === undefined) return;
    this.#waiters.delete(taskId);
    for (const wake of waiters) wake();
  }

  /**
   * The last seq notified for `taskId`, if every append since was notified with its seq; undefined
   * once anything may have been missed (`notifyAll`, a notice without a seq, an entry evicted).
   */
  lastKnown(taskId: string): number | undefined {
    return this.#known.get(taskId);
  }

  /** Wake every waiter of every task (used on close, and when changes may have been missed). */
  notifyAll(): void {
    this.#known.clear();
    this.#tell(undefined);
    const listeners = new Set(this.#changes);
    this.#changes.clear();
    // Each waiter woken, but the change listeners told once (above), not once per task.
    try {
      for (const taskId of [...this.#waiters.keys()]) this.notify(taskId);
    } finally {
      for (const listener of listeners) this.#changes.add(listener);
    }
  }

  /**
   * Call `listener` on every `notify` (with the task) and `notifyAll` (with undefined: any task
   * may have changed), synchronously; it must be cheap and not throw (a throw is swallowed).
   * Returns the unsubscribe function.
   */
  onChange(listener: (taskId: string | undefined) => void): () => void {
    this.#changes.add(listener);
    return () => this.#changes.delete(listener);
  }

  #tell(taskId: string | undefined): void {
    for (const listener of this.#changes) {
      try {
        listener(taskId);
      } catch {
        // A listener's failure is its own; the append that notified goes on.
      }
    }
  }

  /**
   * Resolve at the next `notify` of `taskId`, when `signal` aborts, or after `pollMs` (when given) so
   * changes by another process are seen too. Never rejects.
   */
  wait(taskId: string, signal: AbortSignal, pollMs?: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#waiters.get(taskId)?.delete(done);
        resolve();
      };
      if (signal.aborted) return resolve();
      signal.addEventListener("abort", done, { once: true });
      let set = this.#waiters.get(taskId);
      if (set === undefined) {
        set = new Set();
        this.#waiters.set(taskId, set);
      }
      set.add(done);
      if (pollMs !== undefined) timer = setTimeout(done, pollMs);
    });
  }
}
