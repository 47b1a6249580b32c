/**
 * One task's log as Server-Sent Events: every stored event after `afterSeq` (`id:` = seq,
 * `event:` = type), then live ones as they are appended, with the live ephemeral deltas of this
 * process's workers between them (no `id:`, so a reconnect resumes by stored seq only: nothing
 * lost, nothing repeated). Comments keep an idle stream open; the stream ends once the task is
 * finished and everything up to its last event was sent.
 */
import { isTerminal, type Store, type StoredEvent, type TaskRecord } from "@sema-agent/core";
import type { EventHub } from "./event-hub.ts";

export interface SseStreamOptions {
  store: Store;
  hub: EventHub | undefined;
  /** The task's record when the request was authorized. */
  record: TaskRecord;
  afterSeq: number;
  heartbeatMs: number;
  /** How long a client should wait before reconnecting (the SSE `retry:` field). */
  retryMs?: number;
  /**
   * Frames queued for a client that does not read them fast enough before the stream is ended
   * (default 10,000): it reconnects with Last-Event-ID and loses nothing, and the server never
   * holds an unbounded backlog for it.
   */
  maxQueuedFrames?: number;
}

const TERMINAL_TYPES: ReadonlySet<string> = new Set(["task_completed", "task_failed", "task_cancelled"]);

/** Done when the task is finished, no leg is open, and its last event has been sent. */
function finished(record: TaskRecord, lastSent: number): boolean {
  return isTerminal(record.summary.status) && record.summary.legId === undefined && record.lastSeq <= lastSent;
}

function storedFrame(event: StoredEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function sseStream(options: SseStreamOptions): ReadableStream<Uint8Array> {
  const { store, hub, record } = options;
  const taskId = record.taskId;
  const encoder = new TextEncoder();
  const stop = new AbortController();
  let cleanup = () => {};

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const maxQueued = options.maxQueuedFrames ?? 10_000;
      const write = (text: string) => {
        if (stop.signal.aborted) return;
        if ((controller.desiredSize ?? 0) < -maxQueued) {
          cleanup();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(text));
      };
      let lastSent = options.afterSeq;
      // Deltas are for a subscriber that is live: while it replays older events they would be
      // interleaved with a past they do not belong to.
      let caughtUp = lastSent >= record.lastSeq;
      const unsubscribe =
        hub?.subscribe(taskId, (event) => {
          if (caughtUp) write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        }) ?? (() => {});
      const heartbeat = setInterval(() => write(": heartbeat\n\n"), options.heartbeatMs);
      cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
        stop.abort();
      };
      write(`retry: ${options.retryMs ?? 1000}\n\n`);

      const run = async () => {
        if (finished(record, lastSent)) return;
        // A task already finished (or finishing) ends the stream at its last event.
        let ending = isTerminal(record.summary.status);
        for await (const event of store.watch(taskId, { afterSeq: lastSent, signal: stop.signal })) {
          write(storedFrame(event));
          lastSent = event.seq;
          if (!caughtUp && event.seq >= record.lastSeq) caughtUp = true;
          if (TERMINAL_TYPES.has(event.type)) ending = true;
          if (ending && finished(await store.getTask(taskId), lastSent)) return;
        }
      };
      run()
        .catch(() => {
          // The store went away mid-stream: end it; the client reconnects with Last-Event-ID.
        })
        .finally(() => {
          const open = !stop.signal.aborted;
          cleanup();
          if (open) controller.close();
        });
    },
    cancel() {
      cleanup();
    },
  });
}
