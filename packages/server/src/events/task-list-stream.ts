/**
 * The stream behind `GET /v1/tasks/stream`: from the moment it opens, one `event: task` frame (a
 * `TaskListItem`) each time a task of the caller's principal that passes the filters changes, as
 * the process's {@link TaskListFeed} hears of it. No `id:`: a client that reconnects lists again
 * (`GET /v1/tasks`), and so does one told `event: resync`. Heartbeat comments keep it open; a
 * backlog past `maxBufferedBytes` (or the process's `StreamBudget`) ends it with
 * `event: stream_overflow`, a revoked token with `event: token_revoked`.
 */
import type { TaskRecord, TaskStatus } from "@sema-agent/core";
import type { TaskListItemBody } from "../schemas/tasks.ts";
import { FrameQueue } from "./frame-queue.ts";
import { controlFrame, textFrame } from "./sse-frame.ts";
import type { SseSource } from "./sse-source.ts";
import { DEFAULT_STREAM_BYTES } from "./sse-subscriber.ts";
import type { BudgetedStream, StreamBudget } from "./stream-budget.ts";
import type { TaskListFeed, TaskListListener } from "./task-list-feed.ts";

/** Which changed tasks a list stream sends. */
export interface TaskListFilter {
  status?: TaskStatus | undefined;
  agent?: string | undefined;
  /** Only tasks without a parent. */
  roots?: boolean | undefined;
}

/** Options of a {@link TaskListSubscriber}. */
export interface TaskListStreamOptions {
  feed: TaskListFeed;
  principal: string;
  filter: TaskListFilter;
  budget?: StreamBudget;
  heartbeatMs: number;
  maxBufferedBytes?: number;
  /** As `SseStreamOptions.authorized`: asked every `recheckMs`; false ends the stream. */
  authorized?: () => Promise<boolean>;
  recheckMs?: number;
  /** As `SseStreamOptions.onRevoked`. */
  onRevoked?: (listener: () => void) => () => void;
}

const encoder = new TextEncoder();

/** Whether `item` (of `record`) passes `filter`. */
export function passes(filter: TaskListFilter, record: TaskRecord, item: TaskListItemBody): boolean {
  if (filter.status !== undefined && item.status !== filter.status) return false;
  if (filter.agent !== undefined && item.agent !== filter.agent) return false;
  return filter.roots !== true || record.parentTaskId === undefined;
}

/** One list stream's queue and end (see the module's comment). */
export class TaskListSubscriber implements SseSource, TaskListListener, BudgetedStream {
  readonly #options: TaskListStreamOptions;
  readonly #queue: FrameQueue;
  #ending = false;
  #done = false;
  #final: Uint8Array | undefined;
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #stops: (() => void)[] = [];

  constructor(options: TaskListStreamOptions) {
    this.#options = options;
    this.#queue = new FrameQueue({
      budget: options.budget,
      maxBytes: options.maxBufferedBytes ?? DEFAULT_STREAM_BYTES,
      overflow: (limitBytes) => this.overflow("stream_budget", limitBytes),
      ready: () => this.onReady?.(),
    });
  }

  onReady: (() => void) | undefined;

  get live(): boolean {
    return true;
  }

  get queuedBytes(): number {
    return this.#queue.bytes;
  }

  start(): void {
    const options = this.#options;
    options.budget?.join(this);
    this.#push(textFrame("retry: 1000\n\n"));
    const heartbeat = textFrame(": heartbeat\n\n");
    this.#timers.push(setInterval(() => this.#push(heartbeat), options.heartbeatMs));
    const { authorized } = options;
    if (authorized !== undefined)
      this.#timers.push(setInterval(() => void this.#recheck(authorized), options.recheckMs ?? 500));
    if (options.onRevoked !== undefined) this.#stops.push(options.onRevoked(() => this.#revoked()));
    this.#stops.push(options.feed.subscribe(options.principal, this));
  }

  changed(record: TaskRecord, item: TaskListItemBody): void {
    if (!passes(this.#options.filter, record, item)) return;
    this.#push(encoder.encode(`event: task\ndata: ${JSON.stringify(item)}\n\n`));
  }

  resync(): void {
    this.#push(controlFrame("resync", { reason: "changes_unnamed" }));
  }

  overflow(reason: "process_budget" | "stream_budget", limitBytes: number): void {
    this.#cut(controlFrame("stream_overflow", { reason, limitBytes }));
  }

  poll(): Uint8Array | null | undefined {
    const chunk = this.#queue.take();
    if (chunk !== undefined) return chunk;
    if (this.#done) return null;
    if (this.#ending) {
      const final = this.#final;
      this.#final = undefined;
      if (final !== undefined) return final;
      this.#close();
      return null;
    }
    return undefined;
  }

  async next(): Promise<Uint8Array | null> {
    for (;;) {
      const chunk = this.poll();
      if (chunk !== undefined) return chunk;
      await this.#queue.wait();
    }
  }

  cancel(): void {
    this.#close();
  }

  async #recheck(authorized: () => Promise<boolean>): Promise<void> {
    const valid = await authorized().catch(() => false);
    if (!valid) this.#revoked();
  }

  #revoked(): void {
    this.#cut(controlFrame("token_revoked", { reason: "token_revoked" }));
  }

  /** End now: drop the backlog, send `final` only, then close. */
  #cut(final: Uint8Array): void {
    if (this.#ending || this.#done) return;
    this.#queue.drop();
    this.#final = final;
    this.#ending = true;
    this.#detach();
    this.#queue.wake();
  }

  #push(frame: Uint8Array): void {
    if (this.#ending || this.#done) return;
    this.#queue.push(frame);
  }

  #detach(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
    const stops = this.#stops;
    this.#stops = [];
    for (const stop of stops) stop();
  }

  #close(): void {
    if (this.#done) return;
    this.#detach();
    this.#queue.drop();
    this.#options.budget?.leave(this);
    this.#done = true;
    this.#queue.wake();
  }
}
