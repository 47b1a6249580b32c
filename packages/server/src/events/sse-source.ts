/**
 * What the hosts of an event stream (`sseStream`, `sseToNode`) drain: a task's log
 * (`SseSubscriber`) or the list of a caller's tasks (`TaskListSubscriber`).
 */
export interface SseSource {
  /** Begin: timers, subscriptions, the first frames. */
  start(): void;
  /** The next chunk if one is ready now; null once the stream ended; undefined when none is ready. */
  poll(): Uint8Array | null | undefined;
  /** The next chunk, waiting for it; null once the stream ended. */
  next(): Promise<Uint8Array | null>;
  /** The client went away. */
  cancel(): void;
  /** True when nothing is read on demand: `onReady` says when a chunk is ready. */
  readonly live: boolean;
  /** Called when a chunk is ready for `poll` while no `next()` waits (see `SseSubscriber.onReady`). */
  onReady: (() => void) | undefined;
}
