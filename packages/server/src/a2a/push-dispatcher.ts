/**
 * Push notifications, driven from the log: for each task with a registered webhook, one loop
 * reads the task's events (stored, then live), and at every change of the A2A state POSTs the
 * status update to each webhook whose cursor is behind it, retrying with exponential backoff until
 * the webhook answers 2xx, then moves the cursor. Cursors are stored (`PushConfigStore`), so a
 * dispatcher that starts after a crash sends what was owed and nothing that was acknowledged.
 *
 * Each request carries `X-A2A-Notification-Token` (the client's token, as A2A's SDKs send it) and
 * an HMAC-SHA256 signature keyed by that token over `<timestamp>.<body>`:
 * `X-Sema-Signature: t=<ms>,v1=<hex>`, so a receiver can tell the server's notifications from
 * anyone else's and refuse replays of old ones.
 */
import { createHmac } from "node:crypto";
import { StreamResponse, type StreamResponse as StreamResponseType } from "@a2a-js/sdk";
import type { Store } from "@sema-agent/core";
import type { PushConfig, PushConfigStore } from "./push-config-store.ts";
import { checkPushUrl, type PushUrlPolicy } from "./push-url.ts";
import { isTerminalState, TaskProjection } from "./task-projection.ts";

/** What a `PushDispatcher` delivers from and to. */
export interface PushDispatcherOptions {
  /** The task store whose logs drive the notifications. */
  store: Store;
  /** The registered webhooks and their delivery cursors. */
  configs: PushConfigStore;
  /** Which webhook URLs may be called (default: no loopback or private addresses). */
  urls?: PushUrlPolicy;
  /** Backoff between attempts: `baseMs · 2^n`, at most `maxMs`. Default 500 ms and 60 s. */
  retry?: { baseMs?: number; maxMs?: number };
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Milliseconds since the epoch, for the signature's timestamp. Default `Date.now`. */
  now?: () => number;
  /** A failed attempt (the delivery is retried). Default: nothing. */
  onError?: (error: unknown, taskId: string) => void;
}

/** The signature header's value for `body`, keyed by `token`, at `timestamp` (ms). */
export function signPush(token: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", token).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${mac}`;
}

/**
 * Delivers A2A push notifications from the task log: one loop per task with a webhook. `start()`
 * resumes what was owed before a restart, `watch(taskId)` follows a task once a config is
 * registered, `close()` stops every loop and retry.
 */
export class PushDispatcher {
  /** The configs it reads (the A2A handler writes new ones here). */
  readonly configs: PushConfigStore;
  /** Which webhook URLs it may call. */
  readonly urls: PushUrlPolicy;
  readonly #options: PushDispatcherOptions;
  readonly #loops = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();

  constructor(options: PushDispatcherOptions) {
    this.#options = options;
    this.configs = options.configs;
    this.urls = options.urls ?? {};
  }

  /** Resume every task that has configs: owed notifications go out now. */
  async start(): Promise<void> {
    for (const config of await this.configs.all()) this.watch(config.taskId);
  }

  /** Make sure a loop delivers this task's notifications (idempotent). */
  watch(taskId: string): void {
    if (this.#stop.signal.aborted || this.#loops.has(taskId)) return;
    const loop = this.#run(taskId)
      .catch((error: unknown) => {
        if (!this.#stop.signal.aborted) this.#options.onError?.(error, taskId);
      })
      .finally(() => this.#loops.delete(taskId));
    this.#loops.set(taskId, loop);
  }

  /** Stop every loop and pending retry; cursors keep what was delivered. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.all([...this.#loops.values()]);
  }

  async #run(taskId: string): Promise<void> {
    const signal = this.#stop.signal;
    const projection = new TaskProjection(taskId);
    for await (const event of this.#options.store.watch(taskId, { signal })) {
      const before = projection.state;
      const responses = projection.apply(event);
      const changed = event.type === "task_created" || projection.state !== before;
      const note = changed ? responses.at(-1) : undefined;
      if (note !== undefined) await this.#deliverAll(taskId, event.seq, note);
      if (isTerminalState(projection.state)) return;
    }
  }

  async #deliverAll(taskId: string, seq: number, note: StreamResponseType): Promise<void> {
    const owed = (await this.configs.list(taskId)).filter((config) => config.deliveredSeq < seq);
    if (owed.length === 0) return;
    const body = JSON.stringify(StreamResponse.toJSON(note));
    await Promise.all(
      owed.map(async (config) => {
        if (await this.#deliver(config, body)) await this.configs.advance(taskId, config.id, seq);
      }),
    );
  }

  /** POST until a 2xx (true) or the dispatcher stops (false). */
  async #deliver(config: PushConfig, body: string): Promise<boolean> {
    const signal = this.#stop.signal;
    const base = this.#options.retry?.baseMs ?? 500;
    const max = this.#options.retry?.maxMs ?? 60_000;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        // Checked before each attempt: a name that resolved outside may resolve inside later.
        const url = await checkPushUrl(config.url, this.urls);
        const timestamp = (this.#options.now ?? Date.now)();
        const headers: Record<string, string> = {
          "content-type": "application/a2a+json",
          "x-sema-signature": signPush(config.token, timestamp, body),
        };
        if (config.token !== "") headers["x-a2a-notification-token"] = config.token;
        if (config.authentication !== undefined)
          headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
        const response = await fetch(url, {
          method: "POST",
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.#options.timeoutMs ?? 10_000)]),
        });
        await response.body?.cancel().catch(() => undefined);
        if (response.status >= 200 && response.status < 300) return true;
        throw new Error(`webhook answered ${response.status}`);
      } catch (error) {
        if (signal.aborted) return false;
        this.#options.onError?.(error, config.taskId);
      }
      await sleep(Math.min(max, base * 2 ** Math.min(attempt, 20)), signal);
    }
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
