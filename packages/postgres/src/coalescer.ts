/**
 * Group commit's queue for PostgreSQL: writes that arrive while a tick (or `windowMs`) is open, or
 * while earlier batches are in flight, go to the database together as one statement, one
 * transaction. A batch holds at most `maxBatch` writes and at most one per key (a task), so a
 * statement never touches a row twice; a write whose key is already in the batch waits for the
 * next one. Reads, which touch no row, coalesce the same way without a key.
 *
 * People first (`WriteLane`): the queue holds the `attended` lane's items, then the `person`
 * lane's, then the routine ones. An item goes ahead of the lanes below its own (and starts a batch
 * at once when one may start), and takes the items queued for its key in lower lanes (its task,
 * whose leg is blocked on them) into its lane ahead of it, in their order. Up to `MAX_IN_FLIGHT`
 * batches run at once, each on its own pooled connection, taking items from the head of the
 * queue. Beside them, a batch of the attended lane's items alone (`ATTENDED_IN_FLIGHT`), which
 * `run` is told to send on the connections no routine work queues for: at ten thousand legs,
 * routine batches waited seconds for the pool, and a person steering a task waited with them. A
 * new task's first step (`person`) goes ahead but on the main pool: ten thousand of those at
 * once on the priority lane's two connections starved the lease renewals there.
 */
import { type GroupCommitSettings, scheduleFlush, type WriteLane } from "@sema-agent/core/store-kit";

/**
 * Batches in flight at once. The pool's other connections stay free for reads, claims and the
 * locking path; more batches in flight would mostly make each one smaller.
 */
const MAX_IN_FLIGHT = 4;

/** Batches of attended items alone in flight at once, beside the others. */
const ATTENDED_IN_FLIGHT = 1;

/** The lanes in queue order; an item's rank is its lane's index. */
const RANK = { attended: 0, person: 1, routine: 2 } as const satisfies Record<WriteLane, number>;

/** Writes of one kind, coalesced; `run` commits a batch and settles each write's caller. */
export class Coalescer<Item> {
  readonly #settings: GroupCommitSettings;
  readonly #run: (batch: Item[], lane: WriteLane) => Promise<void>;
  readonly #key: ((item: Item) => string) | undefined;
  #queue: Item[] = [];
  /** Items at the head of `#queue` in the attended lane, and after them in the person lane. */
  readonly #counts = [0, 0];
  /** Items queued per key in the person and the routine lane: a lift scans only when some wait. */
  readonly #keyCounts = [new Map<string, number>(), new Map<string, number>()];
  #inFlight = 0;
  #attendedInFlight = 0;
  #cancel: (() => void) | undefined;
  /** Batches sent (for bench:live's commits per second). */
  batches = 0;

  /**
   * `key` undefined: items need no key of their own in a batch (reads). `run` sends a batch and
   * settles each item; `lane` is `attended` for a batch of the attended lane's items alone (sent on
   * the priority lane's connections), else `routine`.
   */
  constructor(
    settings: GroupCommitSettings,
    key: ((item: Item) => string) | undefined,
    run: (batch: Item[], lane: WriteLane) => Promise<void>,
  ) {
    this.#settings = settings;
    this.#key = key;
    this.#run = run;
  }

  /** Queue `item` for the next batch, ahead of the items of lower lanes. */
  add(item: Item, lane: WriteLane = "routine"): void {
    const rank = RANK[lane];
    const key = this.#key?.(item);
    if (key !== undefined && rank < RANK.routine) this.#lift(key, rank);
    if (rank === RANK.routine) this.#queue.push(item);
    else this.#queue.splice(this.#end(rank), 0, item);
    this.#count(rank, key, 1);
    const slot = this.#inFlight < MAX_IN_FLIGHT;
    // A person's item goes at once: an attended one on its own lane when that is free, either in
    // the next batch otherwise. Without a free slot, the next batch starts as one ends.
    if (rank === RANK.attended && (slot || this.#attendedInFlight < ATTENDED_IN_FLIGHT)) this.#start();
    else if (!slot) return;
    else if (rank === RANK.person || this.#queue.length >= this.#settings.maxBatch) this.#start();
    else if (this.#cancel === undefined) {
      this.#cancel = scheduleFlush(this.#settings.windowMs, () => {
        this.#cancel = undefined;
        this.#start();
      });
    }
  }

  /** Where the lane of `rank` ends in the queue (the routine lane: at its end). */
  #end(rank: number): number {
    if (rank === RANK.attended) return this.#counts[0] as number;
    if (rank === RANK.person) return (this.#counts[0] as number) + (this.#counts[1] as number);
    return this.#queue.length;
  }

  /** Note `delta` items of lane `rank` (and their key, below the attended lane). */
  #count(rank: number, key: string | undefined, delta: number): void {
    if (rank < RANK.routine) this.#counts[rank] = (this.#counts[rank] as number) + delta;
    if (key === undefined || rank === RANK.attended) return;
    const counts = this.#keyCounts[rank - 1] as Map<string, number>;
    const left = (counts.get(key) ?? 0) + delta;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  }

  /** Move the items queued for `key` in lanes below `rank`, in order, to the end of that lane. */
  #lift(key: string, rank: number): void {
    const lower = this.#keyCounts.slice(rank).some((counts) => counts.has(key));
    if (!lower) return;
    const keyOf = this.#key as (item: Item) => string;
    const from = this.#end(rank);
    const rankAt = this.#ranks();
    const lifted: Item[] = [];
    const rest: Item[] = [];
    for (let i = from; i < this.#queue.length; i++) {
      const item = this.#queue[i] as Item;
      if (keyOf(item) !== key) {
        rest.push(item);
        continue;
      }
      lifted.push(item);
      this.#count(rankAt(i), key, -1);
      this.#count(rank, key, 1);
    }
    this.#queue = [...this.#queue.slice(0, from), ...lifted, ...rest];
  }

  /** The lane of each index of the queue as it is now (the counts change as items move). */
  #ranks(): (index: number) => number {
    const attended = this.#counts[0] as number;
    const people = attended + (this.#counts[1] as number);
    return (index) => (index < attended ? RANK.attended : index < people ? RANK.person : RANK.routine);
  }

  #start(): void {
    // The attended lane's items go on their own lane first, when its slot is free.
    while ((this.#counts[0] as number) > 0 && this.#attendedInFlight < ATTENDED_IN_FLIGHT) {
      this.#attendedInFlight++;
      this.#send(this.#take(true), "attended", () => this.#attendedInFlight--);
    }
    if (this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#cancel?.();
    this.#cancel = undefined;
    while (this.#queue.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      this.#inFlight++;
      this.#send(this.#take(false), "routine", () => this.#inFlight--);
    }
  }

  #send(batch: Item[], lane: WriteLane, done: () => void): void {
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
   * Up to `maxBatch` queued items, one per key, from the head of the queue (the higher lanes'
   * first); the rest stay queued, in order. With `attendedOnly`, the attended lane's items alone.
   */
  #take(attendedOnly: boolean): Item[] {
    const end = attendedOnly ? (this.#counts[0] as number) : this.#queue.length;
    const max = Math.min(end, this.#settings.maxBatch);
    const batch: Item[] = [];
    const keys = new Set<string>();
    const skipped: Item[] = [];
    const rankAt = this.#ranks();
    // Scan only until the batch is full: at ten thousand queued writes, scanning the whole queue
    // for every batch of 256 was quadratic.
    let i = 0;
    for (; i < end && batch.length < max; i++) {
      const item = this.#queue[i] as Item;
      const rank = rankAt(i);
      const key = this.#key?.(item);
      if (key !== undefined && keys.has(key)) {
        skipped.push(item);
        continue;
      }
      if (key !== undefined) keys.add(key);
      batch.push(item);
      this.#count(rank, key, -1);
    }
    // What was skipped goes back to the head, ahead of what was not scanned: the lanes stay in order.
    this.#queue = skipped.length === 0 ? this.#queue.slice(i) : [...skipped, ...this.#queue.slice(i)];
    return batch;
  }
}
