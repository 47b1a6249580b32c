/**
 * How many task-list streams (`GET /v1/tasks/stream`) each principal holds open in this process:
 * each is a subscription to the store's change feed and a socket for as long as the client stays.
 * Past `limits.maxTaskListStreams` for one principal, a 429 `RateLimited` with `Retry-After`, as the
 * rate limit answers. In-process, like the rate limit: with several API nodes each counts its own.
 */
import type { SseSource } from "../events/sse-source.ts";
import { HttpError } from "../http-error.ts";

export class StreamSlots {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Take a slot of `principal`'s (429 when it holds them all); returns its release, safe to call twice. */
  take(principal: string): () => void {
    const held = this.#open.get(principal) ?? 0;
    if (held >= this.#max)
      throw new HttpError(
        429,
        "RateLimited",
        `this principal has ${held} task-list streams open, the most this server allows: close one (a studio tab) or try again later`,
        { details: { retryAfterSeconds: 5, maxTaskListStreams: this.#max }, headers: { "Retry-After": "5" } },
      );
    this.#open.set(principal, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(principal) ?? 1) - 1;
      if (left <= 0) this.#open.delete(principal);
      else this.#open.set(principal, left);
    };
  }

  /** Streams `principal` holds open; for tests. */
  count(principal: string): number {
    return this.#open.get(principal) ?? 0;
  }
}

/** `source` as it is, but `release` is called once it has ended (a null chunk) or been cancelled. */
export function releasing(source: SseSource, release: () => void): SseSource {
  const ended = (chunk: Uint8Array | null | undefined) => {
    if (chunk === null) release();
    return chunk;
  };
  return {
    start: () => source.start(),
    poll: () => ended(source.poll()),
    next: async () => ended(await source.next()) ?? null,
    cancel: () => {
      release();
      source.cancel();
    },
    get live() {
      return source.live;
    },
    get onReady() {
      return source.onReady;
    },
    set onReady(callback) {
      source.onReady = callback;
    },
  };
}
