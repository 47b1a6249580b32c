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
    if (bucket.tokens < 1) {
      this.#buckets.set(principal, bucket);
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new HttpError(429, "RateLimited", `too many requests for principal ${principal}`, {
        details: { retryAfterSeconds: retryAfter },
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    bucket.tokens -= 1;
    this.#buckets.set(principal, bucket);
    // A full bucket is the same as no bucket: forget idle principals so the map stays small.
    if (this.#buckets.size > 10_000) this.#sweep(now);
  }

  #sweep(now: number): void {
    const perMs = this.#settings.perMinute / 60_000;
    for (const [principal, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.at) * perMs >= this.#settings.burst) this.#buckets.delete(principal);
    }
  }
}
