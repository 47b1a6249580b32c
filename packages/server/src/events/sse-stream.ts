/**
 * One task's log as Server-Sent Events: every stored event after `afterSeq` (`id:` = seq,
 * `event:` = type), then live ones as they are appended, with the live ephemeral deltas of this
 * process's workers between them (no `id:`, so a reconnect resumes by stored seq only: nothing
 * lost, nothing repeated). Comments keep an idle stream open; the stream ends once the task is
 * finished and everything up to its last event was sent.
 *
 * Memory is bounded per client, not per log: the stream reads the stored log only when its client
 * has taken what came before (pull, page by page), so a client that never reads costs one page,
 * not the log. Live frames (pushed by the task's shared tail, deltas, heartbeats) queue for a
 * client up to `maxBufferedBytes`; past that, or past the process's `StreamBudget`, the backlog is
 * dropped and the stream ends with `event: stream_overflow` naming the limit and the last seq
 * handed to the connection, from which the client resumes with `Last-Event-ID`. A stream whose
 * credential stops being valid (a revoked token) ends with `event: token_revoked`.
 */
import type { SseSource } from "./sse-source.ts";
import { type SseStreamOptions, SseSubscriber } from "./sse-subscriber.ts";

export { DEFAULT_STREAM_BYTES, type SseStreamOptions } from "./sse-subscriber.ts";

/** The stream as a web `ReadableStream` (for `Response` bodies: tests, non-Node hosts). */
export function sseStream(options: SseStreamOptions): ReadableStream<Uint8Array> {
  return sourceStream(new SseSubscriber(options));
}

/** Any event-stream source as a web `ReadableStream`. */
export function sourceStream(subscriber: SseSource): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start: () => subscriber.start(),
      pull: async (controller) => {
        const chunk = await subscriber.next();
        if (cancelled) return;
        if (chunk === null) controller.close();
        else controller.enqueue(chunk);
      },
      cancel: () => {
        cancelled = true;
        subscriber.cancel();
      },
    },
    // Nothing is read ahead of the client: `pull` runs only when the connection wants more.
    { highWaterMark: 0 },
  );
}
