/**
 * One live tail per task for every event stream of it in this process: a single `store.watch`
 * reads each new event once and hands it to every subscriber that has caught up, instead of each
 * subscriber waking, reading and serializing the same event for itself. A subscriber that is
 * behind reads the log on its own, at its client's pace, and joins the tail once it is level.
 */
import { isTerminal, type Store, type StoredEvent, type TaskRecord } from "@sema-agent/core";

/** A caught-up subscriber, as the tail sees it. */
export interface TailSubscriber {
  /** The last seq this subscriber has queued; the tail hands it only later events. */
  readonly lastSeq: number;
  /** A new stored event, in order. */
  stored(event: StoredEvent): void;
  /** The task is finished and every event up to `lastSeq` was handed over: end after it. */
  finish(): void;
  /** The tail stopped (the store failed): end now; the client resumes with `Last-Event-ID`. */
  lost(): void;
}

const TERMINAL_TYPES: ReadonlySet<string> = new Set(["task_completed", "task_failed", "task_cancelled"]);

/** Finished when the task is terminal, no leg is open, and its last event has been sent. */
export function finishedAt(record: TaskRecord, lastSent: number): boolean {
  return isTerminal(record.summary.status) && record.summary.legId === undefined && record.lastSeq <= lastSent;
}

/** Whether an event may be the last of its task (so the stream checks whether it is). */
export function mayEnd(event: StoredEvent): boolean {
  return TERMINAL_TYPES.has(event.type);
}

class TaskTail {
  readonly subscribers = new Set<TailSubscriber>();
  readonly #stop = new AbortController();
  /** The last seq read from the store (and handed to every subscriber). */
  position: number;
  /** A terminal event was seen (here or by a joining subscriber): check for the end after each event. */
  ending = false;

  readonly store: Store;
  readonly taskId: string;
  readonly onStop: () => void;

  constructor(store: Store, taskId: string, afterSeq: number, onStop: () => void) {
    this.store = store;
    this.taskId = taskId;
    this.onStop = onStop;
    this.position = afterSeq;
    void this.#run();
  }

  async #run(): Promise<void> {
    try {
      for await (const event of this.store.watch(this.taskId, { afterSeq: this.position, signal: this.#stop.signal })) {
        this.position = event.seq;
        for (const subscriber of this.subscribers) if (event.seq > subscriber.lastSeq) subscriber.stored(event);
        if (mayEnd(event)) this.ending = true;
        if (this.ending && finishedAt(await this.store.getTask(this.taskId), event.seq)) {
          for (const subscriber of this.subscribers) subscriber.finish();
          break;
        }
        if (this.subscribers.size === 0) break;
      }
    } catch {
      if (!this.#stop.signal.aborted) for (const subscriber of this.subscribers) subscriber.lost();
    } finally {
      this.subscribers.clear();
      this.onStop();
    }
  }

  stop(): void {
    this.#stop.abort();
  }
}

/** The tails of one process (one per app), created on a task's first live subscriber. */
export class TaskTails {
  readonly #tails = new Map<string, TaskTail>();

  readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /**
   * Make `subscriber` live if it is level with the task's tail (or start a tail where it is).
   * False when the tail is ahead of it: it reads the log up to there first. `ending` says the
   * subscriber knows the task may be finishing (so the tail checks after each event).
   */
  join(taskId: string, subscriber: TailSubscriber, ending: boolean): boolean {
    let tail = this.#tails.get(taskId);
    if (tail === undefined) {
      const created = new TaskTail(this.store, taskId, subscriber.lastSeq, () => {
        if (this.#tails.get(taskId) === created) this.#tails.delete(taskId);
      });
      tail = created;
      this.#tails.set(taskId, tail);
    } else if (tail.position > subscriber.lastSeq) return false;
    tail.subscribers.add(subscriber);
    if (ending) tail.ending = true;
    return true;
  }

  leave(taskId: string, subscriber: TailSubscriber): void {
    const tail = this.#tails.get(taskId);
    if (tail === undefined || !tail.subscribers.delete(subscriber)) return;
    if (tail.subscribers.size === 0) {
      this.#tails.delete(taskId);
      tail.stop();
    }
  }

  /** Tasks with a running tail (for tests and metrics). */
  get size(): number {
    return this.#tails.size;
  }
}
