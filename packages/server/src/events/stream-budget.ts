/**
 * The bytes every event stream of a process holds for clients that have not read them yet, under
 * one ceiling. Each stream has its own ceiling too (see `sseStream`); this one bounds the sum, so
 * many slow clients together cannot take the process's memory. Over it, the streams with the
 * largest backlogs are cut first: they cost the most, and each resumes from the log with
 * `Last-Event-ID`, so a cut loses a client nothing but a reconnection.
 */

/** What the budget needs of a stream: its backlog, and a way to cut it (which releases it). */
export interface BudgetedStream {
  /** Bytes queued for the client and not yet handed to the connection. */
  readonly queuedBytes: number;
  /** Drop the backlog, end with a final event saying why; must `release` what it held. */
  overflow(reason: "process_budget", limitBytes: number): void;
}

export class StreamBudget {
  readonly #streams = new Set<BudgetedStream>();
  #total = 0;

  /** The ceiling on all streams' backlogs together. */
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held by every stream now. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Streams counted (open ones). */
  get streams(): number {
    return this.#streams.size;
  }

  join(stream: BudgetedStream): void {
    this.#streams.add(stream);
  }

  leave(stream: BudgetedStream): void {
    this.#streams.delete(stream);
  }

  /** `bytes` more are queued; over the ceiling, cut the largest backlogs until under it. */
  hold(bytes: number): void {
    this.#total += bytes;
    while (this.#total > this.maxBytes) {
      let largest: BudgetedStream | undefined;
      for (const stream of this.#streams)
        if (largest === undefined || stream.queuedBytes > largest.queuedBytes) largest = stream;
      if (largest === undefined || largest.queuedBytes === 0) return;
      largest.overflow("process_budget", this.maxBytes);
    }
  }

  /** `bytes` were handed to a connection or dropped. */
  release(bytes: number): void {
    this.#total -= bytes;
  }
}
