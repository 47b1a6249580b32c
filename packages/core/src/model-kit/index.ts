/**
 * `@sema-agent/core/model-kit`: what a model adapter builds on — the `Model` port (the request a
 * turn sends, the stream parts it answers with, the typed failure that ends a stream) and
 * `withRetry`, the decorator that retries a call which failed before it said anything. An
 * application names only `Model` (on the root too); `@sema-agent/ai-sdk` is built on this entry.
 * The transcript a request carries is in `./protocol`.
 *
 * @module @sema-agent/core/model-kit
 */

export { type RetryPolicy, withRetry } from "../harness/model/retry.ts";
export type * from "../ports/model.ts";
