/**
 * People first on the event loop: the queue of leg steps by lane. Legs in one process share one
 * event loop, and a wave of routine work (thousands of legs whose model answered in the same
 * second) would otherwise run back to back before anything else: a person's steer, an HTTP
 * request, a lease renewal wait behind all of it. At each step a leg asks the pacer; a person's
 * step goes at once, a routine one goes at once while the current slice lasts (a few ms), else it
 * queues. At the end of each macrotask the pacer releases the next routine steps, as many as fit
 * in a slice by what the last ones cost, so the loop comes back to timers and I/O between slices.
 * The order of routine steps is kept (first come, first served); none is ever dropped.
 */
import type { WorkLane } from "../../core/work-lane.ts";
import { deferToMacrotask } from "../../internal/macrotask.ts";

/** How the pacer tells time and defers to the end of the macrotask (injected in tests). */
export interface PacerScheduler {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Run `callback` in a later macrotask, after pending I/O and timers had their turn. */
  defer(callback: () => void): void;
}

/** A routine step waiting for its slice. */
export interface PacerWait {
  /** Resolved when the step may run. */
  readonly turn: Promise<void>;
  /** Let the step go now: a person's event arrived for its task while it waited. */
  promote(): void;
}

interface Waiter {
  resolve: () => void;
  gone: boolean;
}

/** How long routine steps may run before the loop gets a turn. */
export const DEFAULT_SLICE_MS = 4;
/** The most routine steps one release may let go (a bound on a slice whatever the estimate). */
const MAX_RELEASE = 512;

/**
 * How a step is paced: `attended` (a person's event arrived for the task while its leg runs: a
 * steer, an interrupt, a decision) never waits; `person` (work a person waits for, as the task's
 * first step) waits only behind other such steps; `routine` waits behind both.
 */
export type PaceLane = "attended" | WorkLane;

/** Waiters of one lane, first come first served. */
class WaitQueue {
  items: Waiter[] = [];
  head = 0;
  count = 0;

  push(waiter: Waiter): void {
    this.items.push(waiter);
    this.count++;
  }

  /** The next waiter not yet gone, taken off the queue. */
  take(): Waiter | undefined {
    while (this.head < this.items.length) {
      const waiter = this.items[this.head] as Waiter;
      this.head++;
      if (!waiter.gone) return waiter;
    }
    return undefined;
  }

  /** Drop what was taken, once it is most of the array. */
  compact(): void {
    if (this.count === 0) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

/** The queue of leg steps of one process; see the module comment. */
export class LegPacer {
  readonly #sliceMs: number;
  readonly #scheduler: PacerScheduler;
  readonly #person = new WaitQueue();
  readonly #routine = new WaitQueue();
  /** When the current slice began; undefined between slices. */
  #sliceStart: number | undefined;
  #deferred = false;
  /** How many steps the next release lets go, adapted to what they cost. */
  #release = 8;
  #released = 0;

  constructor(scheduler: PacerScheduler, sliceMs = DEFAULT_SLICE_MS) {
    this.#scheduler = scheduler;
    this.#sliceMs = sliceMs;
  }

  /** Steps waiting for a slice, both lanes. */
  get waiting(): number {
    return this.#person.count + this.#routine.count;
  }

  /**
   * Wait for the step's turn: `undefined` when the step may run now (always for an attended
   * step, so it costs nothing), else the wait, over when its slice comes or when it is promoted.
   */
  pace(lane: PaceLane): PacerWait | undefined {
    if (lane === "attended") return undefined;
    const queue = lane === "person" ? this.#person : this.#routine;
    // Only waiters of the same or a higher lane are ahead of this step.
    const ahead = lane === "person" ? this.#person.count : this.waiting;
    if (ahead === 0) {
      const now = this.#scheduler.now();
      if (this.#sliceStart === undefined) {
        this.#sliceStart = now;
        this.#deferEnd();
        return undefined;
      }
      if (now - this.#sliceStart < this.#sliceMs) return undefined;
    }
    const waiter: Waiter = { resolve: noop, gone: false };
    const turn = new Promise<void>((resolve) => {
      waiter.resolve = resolve;
    });
    queue.push(waiter);
    this.#deferEnd();
    return {
      turn,
      promote: () => {
        if (waiter.gone) return;
        waiter.gone = true;
        queue.count--;
        waiter.resolve();
      },
    };
  }

  #deferEnd(): void {
    if (this.#deferred) return;
    this.#deferred = true;
    this.#scheduler.defer(() => this.#endSlice());
  }

  /** The macrotask ended: adapt the release to what the last slice cost, then start the next. */
  #endSlice(): void {
    this.#deferred = false;
    const now = this.#scheduler.now();
    const started = this.#sliceStart;
    if (started !== undefined && this.#released > 0) {
      const spent = Math.max(now - started, 0.01);
      const fit = Math.floor((this.#released * this.#sliceMs) / spent);
      this.#release = Math.min(MAX_RELEASE, Math.max(1, fit));
    }
    this.#released = 0;
    if (this.waiting === 0) {
      this.#sliceStart = undefined;
      this.#person.compact();
      this.#routine.compact();
      return;
    }
    this.#sliceStart = now;
    let count = 0;
    for (const queue of [this.#person, this.#routine]) {
      while (count < this.#release) {
        const waiter = queue.take();
        if (waiter === undefined) break;
        waiter.gone = true;
        queue.count--;
        waiter.resolve();
        count++;
      }
      queue.compact();
    }
    this.#released = count;
    this.#deferEnd();
  }
}

const noop = (): void => undefined;

/** The pacer every leg of this process shares unless its host turns pacing off. */
export const sharedLegPacer = new LegPacer({ now: () => performance.now(), defer: deferToMacrotask });
