/**
 * The frames one event stream holds for its client, shared by every kind of stream (a task's log,
 * the list of a caller's tasks): the queue and its byte count under the stream's and the
 * process's ceilings, the chunks handed to the connection, and the wake of whoever drains it.
 */
import { concatFrames } from "./sse-frame.ts";
import type { StreamBudget } from "./stream-budget.ts";

/** Largest chunk handed to the connection at once (several frames coalesced). */
export const CHUNK_BYTES = 64 * 1024;

/** What a {@link FrameQueue} needs of its stream. */
export interface FrameQueueOptions {
  /** The process-wide ceiling on queued bytes (none: only `maxBytes` applies). */
  budget?: StreamBudget | undefined;
  /** This stream's ceiling on queued bytes. */
  maxBytes: number;
  /** The queue went past `maxBytes`: the stream cuts itself, which must `drop` the queue. */
  overflow: (limitBytes: number) => void;
  /** Something is ready while no `wait()` is pending: the host's `onReady`. */
  ready: () => void;
}

/** A stream's queue of frames, its wake, and its drop past the byte budget (see the module's comment). */
export class FrameQueue {
  readonly #options: FrameQueueOptions;
  readonly #frames: Uint8Array[] = [];
  /** The stored seq of each queued frame, or -1 (deltas, comments). */
  readonly #seqs: number[] = [];
  #bytes = 0;
  #waiter: (() => void) | undefined;
  /** The seq of the last stored frame taken: what a client cut now has, and resumes after. */
  #takenSeq: number;

  constructor(options: FrameQueueOptions, takenSeq = -1) {
    this.#options = options;
    this.#takenSeq = takenSeq;
  }

  /** Bytes queued and not yet taken. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether no frame is queued. */
  get empty(): boolean {
    return this.#frames.length === 0;
  }

  /** The seq of the last stored frame taken (the one given to the constructor until then). */
  get takenSeq(): number {
    return this.#takenSeq;
  }

  /**
   * Queue `frame` (of stored `seq`, or -1) and wake the drainer. A `bounded` frame that takes the
   * queue past `maxBytes` overflows the stream; an unbounded one (a catch-up page, already bounded
   * by its size) does not.
   */
  push(frame: Uint8Array, seq = -1, bounded = true): void {
    this.#frames.push(frame);
    this.#seqs.push(seq);
    this.#bytes += frame.byteLength;
    this.#options.budget?.hold(frame.byteLength);
    if (bounded && this.#bytes > this.#options.maxBytes) this.#options.overflow(this.#options.maxBytes);
    this.wake();
  }

  /** The queued frames from the front, coalesced up to a chunk; undefined when none is queued. */
  take(): Uint8Array | undefined {
    const frames = this.#frames;
    const first = frames[0];
    if (first === undefined) return undefined;
    if (frames.length === 1) {
      // The live path's usual case: one frame, no copy and no splice.
      const seq = this.#seqs[0] ?? -1;
      if (seq >= 0) this.#takenSeq = seq;
      frames.length = 0;
      this.#seqs.length = 0;
      this.#bytes -= first.byteLength;
      this.#options.budget?.release(first.byteLength);
      return first;
    }
    let count = 0;
    let bytes = 0;
    while (count < frames.length) {
      const size = frames[count]?.byteLength ?? 0;
      if (count > 0 && bytes + size > CHUNK_BYTES) break;
      bytes += size;
      const seq = this.#seqs[count] ?? -1;
      if (seq >= 0) this.#takenSeq = seq;
      count++;
    }
    const chunk = concatFrames(frames.splice(0, count), bytes);
    this.#seqs.splice(0, count);
    this.#bytes -= bytes;
    this.#options.budget?.release(bytes);
    return chunk;
  }

  /** Drop every queued frame (a stream cut or closed), releasing them from the budget. */
  drop(): void {
    this.#options.budget?.release(this.#bytes);
    this.#frames.length = 0;
    this.#seqs.length = 0;
    this.#bytes = 0;
  }

  /** Resolves at the next `wake` (one waiter at a time: the stream's `next()`). */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** Something changed (a frame, the end): wake the pending `wait()`, or else call `ready`. */
  wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) {
      this.#options.ready();
      return;
    }
    this.#waiter = undefined;
    waiter();
  }
}
