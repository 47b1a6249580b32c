/**
 * Group commit's queue for PostgreSQL: writes that arrive while a tick (or `windowMs`) is open, or
 * while earlier batches are in flight, go to the database together as one statement, one
 * transaction. A batch holds at most `maxBatch` writes and at most one per key (a task), so a
 * statement never touches a row twice; a write whose key is already in the batch waits for the
 * next one. Reads, which touch no row, coalesce the same way without a key. People first
 * (`WorkLane`): an item added in the `person` lane goes ahead of the routine ones queued (and
 * starts a batch at once when one may start), and takes the routine items queued for its key (its
 * task, whose leg is blocked on them) into the person lane ahead of it, in their order. Up to `MAX_IN_FLIGHT` batches run at once, each on its own pooled connection; beside them, a batch of
 * the person lane's items alone (`PERSON_IN_FLIGHT`), which `run` is told to send on the
 * connections no routine work queues for: at ten thousand legs, routine batches waited seconds for
 * the pool, and a person waited with them.
 */
import { type GroupCommitSettings, scheduleFlush, type WorkLane } from "@sema-agent/core/store-kit";

/**
 * Batches in flight at once. The pool's other connections stay free for reads, claims and the
 * locking path; more batches in flight would mostly make each one smaller.
 */
const MAX_IN_FLIGHT = 4;

/** Batches of person-lane items alone in flight at once, beside the routine ones. */
const PERSON_IN_FLIGHT = 1;

/** Writes of one kind, coalesced; `run` commits a batch and settles each write's caller. */
export class Coalescer<Item> {
  readonly #settings: GroupCommitSettings;
  readonly #run: (batch: Item[], lane: WorkLane) => Promise<void>;
  readonly #key: ((item: Item) => string) | undefined;
  #queue: Item[] = [];
  /** Items at the head of `#queue` that are in the person lane. */
  #people = 0;
  /** Routine items queued per key: a person's item scans the queue for its key's only when some wait. */
  readonly #routineKeys = new Map<string, number>();
  #inFlight = 0;
  #personInFlight = 0;
  #cancel: (() => void) | undefined;
  /** Batches sent (for bench:live's commits per second). */
  batches = 0;

  /**
   * `key` undefined: items need no key of their own in a batch (reads). `run` sends a batch and
   * settles each item; `lane` is `person` for a batch of the person lane's items alone.
   */
  constructor(
    settings: GroupCommitSettings,
    key: ((item: Item) => string) | undefined,
    run: (batch: Item[], lane: WorkLane) => Promise<void>,
  ) {
    this.#settings = settings;
    this.#key = key;
    this.#run = run;
  }

  /** Queue `item` for the next batch; in the `person` lane, ahead of the routine items queued. */
  add(item: Item, lane: WorkLane = "routine"): void {
    const person = lane === "person";
    const key = this.#key?.(item);
    if (person) {
      if (key !== undefined) this.#lift(key);
      this.#queue.splice(this.#people++, 0, item);
    } else {
      this.#queue.push(item);
      if (key !== undefined) this.#routineKeys.set(key, (this.#routineKeys.get(key) ?? 0) + 1);
    }
    const slot = this.#inFlight < MAX_IN_FLIGHT;
    // A person's item goes at once: on its own lane when that is free, else in the next batch.
    // Without a free slot, the next batch starts as one ends.
    if (person && (slot || this.#personInFlight < PERSON_IN_FLIGHT)) this.#start();
    else if (!slot) return;
    else if (this.#queue.length >= this.#settings.maxBatch) this.#start();
    else if (this.#cancel === undefined) {
      this.#cancel = scheduleFlush(this.#settings.windowMs, () => {
        this.#cancel = undefined;
        this.#start();
      });
    }
  }

  /** Move the routine items queued for `key`, in order, to the end of the person lane. */
  #lift(key: string): void {
    if (!this.#routineKeys.has(key)) return;
    this.#routineKeys.delete(key);
    const keyOf = this.#key as (item: Item) => string;
    const lifted: Item[] = [];
    const rest: Item[] = [];
    for (let i = this.#people; i < this.#queue.length; i++) {
      const item = this.#queue[i] as Item;
      (keyOf(item) === key ? lifted : rest).push(item);
    }
    this.#queue = [...this.#queue.slice(0, this.#people), ...lifted, ...rest];
    this.#people += lifted.length;
  }

  #start(): void {
    // The person lane's items go on their own lane first, when its slot is free.
    while (this.#people > 0 && this.#personInFlight < PERSON_IN_FLIGHT) {
      this.#personInFlight++;
      this.#send(this.#take(true), "person", () => this.#personInFlight--);
    }
    if (this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#cancel?.();
    this.#cancel = undefined;
    while (this.#queue.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      this.#inFlight++;
      this.#send(this.#take(false), "routine", () => this.#inFlight--);
    }
  }

  #send(batch: Item[], lane: WorkLane, done: () => void): void {
    this.batches++;
    // `run` settles every item itself; a throw past that must not become an unhandled rejection.
    this.#run(batch, lane)
      .catch(() => undefined)
      .finally(() => {
        done();
        // What queued up meanwhile goes at once: that wait was its window.
        if (this.#queue.length > 0) this.#start();
      });
  }

  /**
   * Up to `maxBatch` queued items, one per key, in arrival order; the rest stay queued. With
   * `peopleOnly`, the person lane's items alone.
   */
  #take(peopleOnly: boolean): Item[] {
    // The person lane's items lead the queue; a batch takes them first (those skipped for their
    // key stay at the head, still counted).
    const people = this.#people;
    const max = peopleOnly ? Math.min(people, this.#settings.maxBatch) : this.#settings.maxBatch;
    if (this.#key === undefined) {
      this.#people = Math.max(0, people - max);
      return this.#queue.splice(0, max);
    }
    const batch: Item[] = [];
    const keys = new Set<string>();
    const skipped: Item[] = [];
    // Scan only until the batch is full: at ten thousand queued writes, scanning the whole queue
    // for every batch of 256 was quadratic.
    let i = 0;
    let skippedPeople = 0;
    const end = peopleOnly ? people : this.#queue.length;
    for (; i < end && batch.length < max; i++) {
      const item = this.#queue[i] as Item;
      const key = this.#key(item);
      if (keys.has(key)) {
        skipped.push(item);
        if (i < people) skippedPeople++;
      } else {
        keys.add(key);
        batch.push(item);
        if (i >= people) this.#forgetRoutine(key);
      }
    }
    this.#people = skippedPeople + Math.max(0, people - i);
    this.#queue = skipped.length === 0 ? this.#queue.slice(i) : [...skipped, ...this.#queue.slice(i)];
    return batch;
  }

  /** A routine item of `key` left the queue. */
  #forgetRoutine(key: string): void {
    const left = (this.#routineKeys.get(key) ?? 0) - 1;
    if (left > 0) this.#routineKeys.set(key, left);
    else this.#routineKeys.delete(key);
  }
}
