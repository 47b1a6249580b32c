/**
 * A per-principal token bucket: each principal may make `burst` requests at once and
 * `perMinute` a minute on average, so one busy team cannot starve the others. In-process: with
 * several API nodes each enforces its own share.
 */
import { HttpError } from "../http-error.ts";

export interface RateLimitSettings {
  perMinute: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #settings: RateLimitSettings;
  readonly #now: () => number;

  constructor(settings: RateLimitSettings, now: () => number) {
    this.#settings = settings;
    this.#now = now;
  }

  /** Take one request from `principal`'s bucket, or throw a 429 saying when to retry. */
  take(principal: string): void {
    const { perMinute, burst } = this.#settings;
    const now = this.#now();
    const perMs = perMinute / 60_000;
    const bucket = this.#buckets.get(principal) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = now;
    // Last touched last: the map's order is the order of `at`, so idle buckets are at its front.
    this.#buckets.delete(principal);
    if (bucket.tokens >= 1) bucket.tokens -= 1;
    else {
      this.#buckets.set(principal, bucket);
      this.#sweep(now);
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new HttpError(429, "RateLimited", `too many requests for principal ${principal}`, {
        details: { retryAfterSeconds: retryAfter },
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    this.#buckets.set(principal, bucket);
    this.#sweep(now);
  }

  /**
   * A full bucket is the same as no bucket: forget the buckets idle long enough to be full again
   * whatever they held (`burst / rate`), from the front of the map, stopping at the first that is
   * not. A request visits the buckets it forgets and one more, so it costs O(1) amortised however
   * many principals hold partial buckets (a walk of the whole map once it held 10,000 did not).
   */
  #sweep(now: number): void {
    const refillMs = this.#settings.burst / (this.#settings.perMinute / 60_000);
    for (const [principal, bucket] of this.#buckets) {
      if (now - bucket.at < refillMs) return;
      this.#buckets.delete(principal);
    }
  }

  /** Buckets held (principals not yet known to be full again); for tests. */
  get size(): number {
    return this.#buckets.size;
  }
}
