/**
 * The subscriber behind one event-stream response (see `sseStream` for what the stream is): its
 * queue of frames, its place in the log, and how it ends. Hosts drain it with `next()`.
 */
import type { Store, StoredEvent, TaskRecord } from "@sema-agent/core";
import { isTerminal } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";
import { type CatchUpPacer, nextTurn } from "./catch-up-pacer.ts";
import type { EventHub, StepDeltas } from "./event-hub.ts";
import type { FrameCache } from "./frame-cache.ts";
import { FrameQueue } from "./frame-queue.ts";
import { controlFrame, ephemeralFrame, storedFrame, textFrame } from "./sse-frame.ts";
import type { SseSource } from "./sse-source.ts";
import type { BudgetedStream, StreamBudget } from "./stream-budget.ts";
import { finishedAt, mayEnd, type TailSubscriber, type TaskTails } from "./task-tail.ts";

export interface SseStreamOptions {
  store: Store;
  hub: EventHub | undefined;
  /** The shared live tails of this process. */
  tails: TaskTails;
  /** The process-wide ceiling on queued bytes (none: only the per-stream one applies). */
  budget?: StreamBudget;
  /** Frames shared by streams catching up on the same log (none: each serializes its own). */
  frames?: FrameCache;
  /** The process's shared catch-up budget per turn of the event loop (none: this stream's own). */
  pacer?: CatchUpPacer;
  /** The task's record when the request was authorized. */
  record: TaskRecord;
  afterSeq: number;
  heartbeatMs: number;
  /** How long a client should wait before reconnecting (the SSE `retry:` field). */
  retryMs?: number;
  /** Bytes queued for a client that does not read them before its stream is cut (default 4 MiB). */
  maxBufferedBytes?: number;
  /**
   * Whether the credential the stream was opened with is still good (a token not revoked). Asked
   * every `recheckMs`; false (or a failure to tell) ends the stream. Cheap: the ingress caches it.
   */
  authorized?: () => Promise<boolean>;
  /** Milliseconds between `authorized` checks (default 500, so a revocation ends it within a second). */
  recheckMs?: number;
  /**
   * Subscribe to the credential's revocation in this process (`Caller.onRevoked`): the stream is
   * cut with `token_revoked` at once, before the revocation returns. Returns the unsubscribe.
   */
  onRevoked?: (listener: () => void) => () => void;
  /**
   * Another wire format over the same log (the AI SDK's UI message stream): its frames instead of
   * Sema's, and it says when the stream ends. Stateful, so one per stream. None: Sema's frames,
   * ending once the task is finished.
   */
  framer?: StreamFramer;
}

/**
 * How a stream that is not Sema's own turns the log into frames. The subscriber keeps what it
 * always does (catch-up pages, the shared tail, deltas, budgets, heartbeats); the framer decides
 * the bytes and the end: the stream ends once `done` is true, not when the task is finished.
 */
export interface StreamFramer {
  /** Sent first (after `retry:`). */
  opening(): Uint8Array | undefined;
  /** A stored event, in order: its frame, or nothing to send for it. */
  stored(event: StoredEvent): Uint8Array | undefined;
  /** A live delta (only once level with the log), with the seq its model step began after (if known). */
  ephemeral(event: EphemeralEvent, stepAfterSeq: number | undefined): Uint8Array | undefined;
  /**
   * The stream is level with the log: deltas follow from here. `step`: the deltas of the model
   * step under way so far, when this process's hub saw it begin. Its frames, if any.
   */
  live(step: StepDeltas | undefined): Uint8Array | undefined;
  /** The framer has seen its end: the stream ends after what is queued. */
  readonly done: boolean;
  /** The last frame of a stream that ends (its own end, or the store went away). */
  closing(): Uint8Array | undefined;
  /** The only frame left of a stream cut short: its queue is dropped for it. */
  cut(type: "stream_overflow" | "token_revoked", data: Record<string, unknown>): Uint8Array;
}

/** Default per-stream ceiling on queued bytes. */
export const DEFAULT_STREAM_BYTES = 4 * 1024 * 1024;
/** What one catch-up page aims to hold, so a page of large events stays small. */
const PAGE_BYTES = 256 * 1024;
const MAX_PAGE = 500;

type Mode = "catching-up" | "live" | "ending" | "done";

/** The subscriber behind one response: its queue, its place in the log, and how it ends. */
export class SseSubscriber implements TailSubscriber, BudgetedStream, SseSource {
  readonly #options: SseStreamOptions;
  readonly #taskId: string;
  /** Waits before a catch-up page: the shared pacer, or (given none) one turn of the loop. */
  readonly #pace: (bytes: number) => Promise<void>;
  /** What the client has not taken yet; its `takenSeq` is what a cut client resumes after. */
  readonly #queue: FrameQueue;
  #mode: Mode = "catching-up";
  /** The last seq queued (read from the log or handed by the tail). */
  #lastSeq: number;
  /** The task may be finishing: check for the end after each page. */
  #ending: boolean;
  /** The frame that says why the stream ends, sent after the queue (or instead of it). */
  #final: Uint8Array | undefined;
  #pageLimit = 16;
  #avgFrameBytes = 0;
  #framesSeen = 0;
  #unsubscribe: () => void = () => {};
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #stopRevocation: () => void = () => {};

  constructor(options: SseStreamOptions) {
    this.#options = options;
    this.#taskId = options.record.taskId;
    this.#queue = new FrameQueue(
      {
        budget: options.budget,
        maxBytes: options.maxBufferedBytes ?? DEFAULT_STREAM_BYTES,
        overflow: (limitBytes) => this.overflow("stream_budget", limitBytes),
        ready: () => this.onReady?.(),
      },
      options.afterSeq,
    );
    const { pacer } = options;
    this.#pace = pacer === undefined ? nextTurn : (bytes) => pacer.take(bytes);
    this.#lastSeq = options.afterSeq;
    // A task already finished (or finishing) ends the stream at its last event; a framer ends its own.
    this.#ending = options.framer === undefined && isTerminal(options.record.summary.status);
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  get queuedBytes(): number {
    return this.#queue.bytes;
  }

  start(): void {
    this.#options.budget?.join(this);
    this.#push(textFrame(`retry: ${this.#options.retryMs ?? 1000}\n\n`), -1);
    const opening = this.#options.framer?.opening();
    if (opening !== undefined) this.#push(opening, -1);
    const heartbeat = textFrame(": heartbeat\n\n");
    this.#timers.push(setInterval(() => this.#push(heartbeat, -1), this.#options.heartbeatMs));
    const authorized = this.#options.authorized;
    if (authorized !== undefined)
      this.#timers.push(setInterval(() => void this.#recheck(authorized), this.#options.recheckMs ?? 500));
    const { onRevoked } = this.#options;
    if (onRevoked !== undefined) this.#stopRevocation = onRevoked(() => this.#revoked());
    if (this.#options.framer === undefined && finishedAt(this.#options.record, this.#lastSeq)) this.#end();
  }

  /**
   * Called, synchronously, when something is ready for `poll` while no `next()` waits for it (a
   * live frame queued, or the end): a host can then write it at once, without a promise round
   * trip per event per client (the fan-out's live path).
   */
  onReady: (() => void) | undefined;

  /** Level with the log and taking events from the tail (so `onReady` says when there is more). */
  get live(): boolean {
    return this.#mode === "live";
  }

  /**
   * The client's next chunk if one is ready now; null once the stream ended; undefined when
   * there is none without waiting: live (`onReady` will say when) or catching up (`next()` reads).
   */
  poll(): Uint8Array | null | undefined {
    const chunk = this.#queue.take();
    if (chunk !== undefined) return chunk;
    if (this.#mode === "done") return null;
    if (this.#mode === "ending") {
      const final = this.#final;
      this.#final = undefined;
      if (final !== undefined) return final;
      this.#close();
      return null;
    }
    return undefined;
  }

  /** The client's next chunk, reading the log if it is behind; null once the stream ended. */
  async next(): Promise<Uint8Array | null> {
    for (;;) {
      const chunk = this.poll();
      if (chunk !== undefined) return chunk;
      if (this.#mode === "catching-up") await this.#catchUp();
      else await this.#queue.wait();
    }
  }

  /** The client went away. */
  cancel(): void {
    this.#close();
  }

  stored(event: StoredEvent): void {
    this.#lastSeq = event.seq;
    const { framer } = this.#options;
    if (framer === undefined) {
      this.#push(storedFrame(event), event.seq);
      return;
    }
    if (framer.done) return;
    const frame = framer.stored(event);
    if (frame !== undefined) this.#push(frame, event.seq);
    if (framer.done) this.#end();
  }

  /** The tail says the task is finished: the end of Sema's stream; a framer not done reads on. */
  finish(): void {
    const { framer } = this.#options;
    if (framer === undefined || framer.done || this.#mode !== "live") {
      this.#end();
      return;
    }
    // The tail stopped (a finished task can be woken again): read the log and join a new one.
    this.#unsubscribe();
    this.#unsubscribe = () => {};
    this.#options.tails.leave(this.#taskId, this);
    this.#mode = "catching-up";
    this.#queue.wake();
  }

  lost(): void {
    this.#end();
  }

  overflow(reason: "process_budget" | "stream_budget", limitBytes: number): void {
    this.#cut("stream_overflow", { reason, limitBytes, lastSeq: this.#queue.takenSeq });
  }

  /** End after what is queued (and the framer's closing frame). */
  #end(): void {
    if (this.#mode === "ending" || this.#mode === "done") return;
    this.#final ??= this.#options.framer?.closing();
    this.#mode = "ending";
    this.#detach();
    this.#queue.wake();
  }

  /** End now: drop what is queued, send the frame that says why (and nothing else), then close. */
  #cut(type: "stream_overflow" | "token_revoked", data: Record<string, unknown>): void {
    if (this.#mode === "done") return;
    this.#queue.drop();
    this.#final = this.#options.framer?.cut(type, data) ?? controlFrame(type, data);
    this.#end();
  }

  async #recheck(authorized: () => Promise<boolean>): Promise<void> {
    const valid = await authorized().catch(() => false);
    if (!valid) this.#revoked();
  }

  #revoked(): void {
    this.#cut("token_revoked", { reason: "token_revoked", lastSeq: this.#queue.takenSeq });
  }

  async #catchUp(): Promise<void> {
    const { store } = this.#options;
    if (this.#framesSeen > 0) {
      // Between pages, the process's other work gets its turn (see CatchUpPacer).
      await this.#pace(PAGE_BYTES);
      if (this.#mode !== "catching-up") return;
    }
    const limit = this.#pageLimit;
    let page: StoredEvent[];
    try {
      page = await store.read(this.#taskId, { afterSeq: this.#lastSeq, limit });
    } catch {
      // The store went away mid-stream: end it; the client reconnects with Last-Event-ID.
      return this.#end();
    }
    if (this.#mode !== "catching-up") return;
    const { framer } = this.#options;
    for (const event of page) {
      if (framer?.done === true) break;
      const frame =
        framer === undefined
          ? (this.#options.frames?.frame(this.#taskId, event) ?? storedFrame(event))
          : framer.stored(event);
      this.#lastSeq = event.seq;
      if (mayEnd(event)) this.#ending = true;
      if (frame === undefined) continue;
      this.#push(frame, event.seq, false);
      this.#framesSeen++;
      this.#avgFrameBytes += (frame.byteLength - this.#avgFrameBytes) / this.#framesSeen;
    }
    this.#pageLimit = Math.max(1, Math.min(MAX_PAGE, Math.floor(PAGE_BYTES / Math.max(1, this.#avgFrameBytes))));
    if (framer?.done === true) return this.#end();
    if (framer === undefined && this.#ending && (await this.#finishedNow())) return this.#end();
    if (page.length < limit) this.#goLive();
  }

  async #finishedNow(): Promise<boolean> {
    try {
      return finishedAt(await this.#options.store.getTask(this.#taskId), this.#lastSeq);
    } catch {
      return true;
    }
  }

  /** Level with the log: take live events from the task's tail, and deltas from the hub. */
  #goLive(): void {
    if (this.#mode !== "catching-up") return;
    const { framer } = this.#options;
    // A framer's stream outlives a finished task (a follow-up wakes it): it never asks the tail to end.
    if (!this.#options.tails.join(this.#taskId, this, framer === undefined && this.#ending)) return;
    this.#mode = "live";
    // Deltas are for a subscriber that is live: while it replays older events they would be
    // interleaved with a past they do not belong to.
    const { hub } = this.#options;
    if (framer === undefined) {
      this.#unsubscribe = hub?.subscribe(this.#taskId, (event) => this.#push(ephemeralFrame(event), -1)) ?? (() => {});
    } else {
      // The step under way so far, and its deltas from here, in one turn: none missed, none twice.
      const opening = framer.live(hub?.step(this.#taskId));
      if (opening !== undefined) this.#push(opening, -1);
      this.#unsubscribe =
        hub?.subscribe(this.#taskId, (event, stepAfterSeq) => {
          const frame = framer.ephemeral(event, stepAfterSeq);
          if (frame !== undefined) this.#push(frame, -1);
        }) ?? (() => {});
    }
    // The task may have finished between the last check and the join, with nothing left to come.
    if (framer === undefined && this.#ending)
      void this.#finishedNow().then((finished) => {
        if (finished) this.#end();
      });
  }

  /**
   * Queue a frame. `live` frames count against the stream's ceiling; a catch-up page does not (it
   * is read only once the queue is empty, so it is bounded by the page size already).
   */
  #push(frame: Uint8Array, seq: number, live = true): void {
    if (this.#mode === "ending" || this.#mode === "done") return;
    this.#queue.push(frame, seq, live);
  }

  /** Stop everything that feeds the queue. */
  #detach(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
    this.#stopRevocation();
    this.#stopRevocation = () => {};
    this.#unsubscribe();
    this.#unsubscribe = () => {};
    this.#options.tails.leave(this.#taskId, this);
  }

  #close(): void {
    this.#detach();
    this.#queue.drop();
    this.#options.budget?.leave(this);
    this.#mode = "done";
    this.#queue.wake();
  }
}
