/**
 * `withRetry`: a {@link Model} decorator that retries a call which failed before it said anything.
 * Once a content part has streamed, a retry would show the harness (and live subscribers) the
 * same words twice, so such a failure is passed through and the harness decides.
 */
import type { Model, ModelFailure, ModelPart, ModelRequest } from "../../ports/model.ts";

/** How {@link withRetry} retries. Every field is optional. */
export interface RetryPolicy {
  /** Retries after the first call; `0` disables retrying. Default 4 (at most 5 calls). */
  maxRetries?: number;
  /** The backoff ceiling of the first retry, doubled for each later one. Default 500 ms. */
  baseDelayMs?: number;
  /** Upper bound of every wait, a `retry-after` included. Default 30 000 ms. */
  maxDelayMs?: number;
  /** Uniform in [0, 1); injected for deterministic tests. Default `Math.random`. */
  random?: () => number;
  /**
   * Wait `ms`, settling early when `signal` aborts (resolving or rejecting: either is fine, the
   * wrapper checks the signal after). Default: a timer.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 30_000;

/** Parts that put model output in front of the harness: after one, a retry would repeat it. */
const CONTENT_PARTS: ReadonlySet<ModelPart["type"]> = new Set([
  "text-start",
  "text-delta",
  "text-end",
  "reasoning-start",
  "reasoning-delta",
  "reasoning-end",
  "tool-input-start",
  "tool-input-delta",
  "tool-input-end",
  "tool-call",
]);

/**
 * The wait before retry number `attempt` (1-based): exponential backoff with full jitter,
 * `random() × min(maxDelayMs, baseDelayMs × 2^(attempt−1))`, raised to `retryAfterMs` when the
 * provider asked for a longer wait, and never above `maxDelayMs`:
 *
 * `delay = min(maxDelayMs, max(jitter, retryAfterMs ?? 0))`, rounded down to whole milliseconds.
 *
 * A `retry-after` beyond `maxDelayMs` is cut to `maxDelayMs`: the policy's bound on how long a
 * turn may stall wins over the provider's hint, and a too-early retry costs one more error.
 */
export function retryDelayMs(
  attempt: number,
  failure: ModelFailure,
  policy: { baseDelayMs: number; maxDelayMs: number; random: () => number },
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const unit = Math.min(Math.max(policy.random(), 0), 1);
  const jitter = unit * ceiling;
  const wanted = Math.max(jitter, failure.retryAfterMs ?? 0);
  return Math.floor(Math.max(0, Math.min(policy.maxDelayMs, wanted)));
}

/**
 * Wrap `model` so that a call whose stream ends in a retryable `error` part, before any content
 * part, is made again after a backoff (see `retryDelayMs`).
 *
 * Before each retry the stream yields `{ type: "retry", attempt, delayMs, failure }` (`attempt`
 * counts retries from 1; `failure` is the error that caused it). After `maxRetries` retries the
 * last error part is yielded as is. A non-retryable error, or any error after a content part, is
 * passed through unchanged. An abort while waiting ends the stream with an `aborted` error part.
 * The wrapped model's `id` is the inner one's. Like every model, it never throws or rejects.
 */
export function withRetry(model: Model, policy: RetryPolicy = {}): Model {
  const resolved = {
    maxRetries: Math.max(0, Math.floor(policy.maxRetries ?? DEFAULT_MAX_RETRIES)),
    baseDelayMs: policy.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    maxDelayMs: policy.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    random: policy.random ?? Math.random,
    sleep: policy.sleep ?? sleepUnlessAborted,
  };
  return { id: model.id, stream: (request, signal) => retrying(model, request, signal, resolved) };
}

async function* retrying(
  model: Model,
  request: ModelRequest,
  signal: AbortSignal,
  policy: Required<RetryPolicy>,
): AsyncGenerator<ModelPart, void, undefined> {
  for (let retries = 0; ; retries++) {
    let contentSeen = false;
    let failure: ModelFailure | undefined;
    try {
      for await (const part of model.stream(request, signal)) {
        if (part.type === "error") {
          // An error is a stream's last part; anything an inner model sends after it is ignored.
          failure = part.failure;
          break;
        }
        if (CONTENT_PARTS.has(part.type)) contentSeen = true;
        yield part;
      }
    } catch (error) {
      // The inner model broke the port's contract by throwing; keep ours and report it.
      failure = {
        code: "unknown",
        message: `model ${model.id} threw: ${error instanceof Error ? error.message : String(error)}`,
        isRetryable: false,
      };
    }
    if (failure === undefined) return;
    if (!failure.isRetryable || contentSeen || retries >= policy.maxRetries) {
      yield { type: "error", failure };
      return;
    }
    if (signal.aborted) {
      // A retryable failure that raced the abort: the caller wants to stop, not to wait.
      yield { type: "error", failure: abortedFailure() };
      return;
    }
    const attempt = retries + 1;
    const delayMs = retryDelayMs(attempt, failure, policy);
    yield { type: "retry", attempt, delayMs, failure };
    try {
      await policy.sleep(delayMs, signal);
    } catch {
      // A sleep may reject on abort; the signal check below is what decides.
    }
    if (signal.aborted) {
      yield { type: "error", failure: abortedFailure() };
      return;
    }
  }
}

function abortedFailure(): ModelFailure {
  return { code: "aborted", message: "the model call was aborted", isRetryable: false };
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
