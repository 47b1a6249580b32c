/**
 * A one-reader queue between a run and the loop that reads it. The run pushes and closes it; a
 * reader that leaves before it is closed calls `onLeave` (the stream parks its task) and nothing
 * more is queued for it.
 */
export class Channel<T> implements AsyncIterable<T> {
  readonly #queue: T[] = [];
  readonly #onLeave: () => void;
  #wake: (() => void) | undefined;
  #closed = false;
  #failure: { error: unknown } | undefined;
  #left = false;

  constructor(onLeave: () => void) {
    this.#onLeave = onLeave;
  }

  push(item: T): void {
    if (this.#closed || this.#left) return;
    this.#queue.push(item);
    this.#wake?.();
  }

  /** No more items; with an error, the reader throws it once the queue is read. */
  close(...error: [] | [unknown]): void {
    if (this.#closed) return;
    this.#closed = true;
    if (error.length > 0) this.#failure = { error: error[0] };
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    try {
      for (;;) {
        while (this.#queue.length > 0) yield this.#queue.shift() as T;
        if (this.#closed) {
          if (this.#failure !== undefined) throw this.#failure.error;
          return;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
      }
    } finally {
      if (!this.#closed) {
        this.#left = true;
        this.#queue.length = 0;
        this.#onLeave();
      }
    }
  }
}
