/**
 * Push notifications, driven from the log: for each task with a registered webhook, one loop
 * reads the task's events (stored, then live), and at every change of the A2A state POSTs the
 * status update to each webhook whose cursor is behind it, retrying with exponential backoff until
 * the webhook answers 2xx, then moves the cursor. Cursors are stored (`PushConfigStore`), so a
 * dispatcher that starts after a crash sends what was owed and nothing that was acknowledged.
 *
 * A config with a token gets an HMAC-SHA256 signature keyed by that token over
 * `<timestamp>.<body>`: `X-Sema-Signature: t=<ms>,v1=<hex>`, so a receiver can tell the server's
 * notifications from anyone else's and refuse replays of old ones. The token itself is never sent
 * (a key seen once would let anyone sign); a config without one gets no signature at all.
 *
 * Each attempt judges the config afresh: the URL (resolved once, sent to the checked address),
 * the stored authentication, and the token that registered it. A config that can never be
 * delivered (refused URL, bad authentication, revoked token) is dropped, not retried forever.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { StreamResponse, type StreamResponse as StreamResponseType } from "@a2a-js/sdk";
import type { Store } from "@sema-agent/core";
import { checkPushAuthentication } from "./push-config-check.ts";
import type { PushConfig, PushConfigStore } from "./push-config-store.ts";
import { type PushSender, sendPinned } from "./push-send.ts";
import { judgePushUrl, type PushUrlPolicy } from "./push-url.ts";
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
  /**
   * Whether the bearer token that registered a config is still live (see `tokenLiveness`); a
   * config of a dead token is dropped before it is sent. A rejection is retried. Default: none
   * checked (`serve` passes its token store's).
   */
  tokenValid?: (tokenId: string) => Promise<boolean>;
  /** How one POST is made (tests inject one). Default: node:http(s) to the checked address only. */
  send?: PushSender;
  /** A failed attempt (retried), or a config dropped (`PushConfigDropped`). Default: nothing. */
  onError?: (error: unknown, taskId: string) => void;
}

/** Why the dispatcher dropped a config: it can never be delivered. */
export class PushConfigDroppedError extends Error {
  /** Stable, for logs and tests. */
  readonly code = "PushConfigDropped";
  /** Stable: `revoked-token`, `bad-authentication`, or the URL's refusal (`non-public`, `scheme` …). */
  readonly reason: string;
  /** The config's id (within its task). */
  readonly configId: string;
  constructor(reason: string, configId: string, message: string) {
    super(`push notification config ${configId} dropped: ${message}`);
    this.name = "PushConfigDroppedError";
    this.reason = reason;
    this.configId = configId;
  }
}

/** The signature header's value for `body`, keyed by `token` (not empty), at `timestamp` (ms). */
export function signPush(token: string, timestamp: number, body: string): string {
  if (token === "") throw new TypeError("a push signature needs a key: a config without a token is not signed");
  const mac = createHmac("sha256", token).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${mac}`;
}

/**
 * For a receiver: whether `header` (`X-Sema-Signature`) signs `body` with `token`, at a time no
 * further than `toleranceMs` (default 5 minutes) from `now` (default `Date.now()`).
 */
export function verifyPush(
  token: string,
  header: string,
  body: string,
  options: { now?: number; toleranceMs?: number } = {},
): boolean {
  const match = /^t=(\d{1,16}),v1=([0-9a-f]{64})$/.exec(header);
  if (token === "" || match?.[1] === undefined || match[2] === undefined) return false;
  const timestamp = Number(match[1]);
  if (Math.abs((options.now ?? Date.now()) - timestamp) > (options.toleranceMs ?? 300_000)) return false;
  const expected = Buffer.from(signPush(token, timestamp, body).slice(-64), "hex");
  return timingSafeEqual(expected, Buffer.from(match[2], "hex"));
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

  /** The config's fate now: deliverable, or dropped for good (with why). */
  async #judge(config: PushConfig): Promise<{ drop: PushConfigDroppedError } | { headers: Record<string, string> }> {
    if (config.tokenId !== undefined && this.#options.tokenValid !== undefined) {
      if (!(await this.#options.tokenValid(config.tokenId)))
        return {
          drop: new PushConfigDroppedError("revoked-token", config.id, "the token that registered it is revoked"),
        };
    }
    const headers: Record<string, string> = { "content-type": "application/a2a+json" };
    if (config.authentication !== undefined) {
      try {
        checkPushAuthentication(config.authentication);
      } catch (error) {
        return { drop: new PushConfigDroppedError("bad-authentication", config.id, (error as Error).message) };
      }
      headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
    }
    return { headers };
  }

  /** POST until a 2xx (true), the config is dropped or the dispatcher stops (false). */
  async #deliver(config: PushConfig, body: string): Promise<boolean> {
    const signal = this.#stop.signal;
    const base = this.#options.retry?.baseMs ?? 500;
    const max = this.#options.retry?.maxMs ?? 60_000;
    const send = this.#options.send ?? sendPinned;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const judged = await this.#judge(config);
        // Checked before each attempt (a name may resolve elsewhere later); the POST goes to the
        // address this check approved, not to a second lookup's answer.
        const check = await judgePushUrl(config.url, this.urls);
        const drop =
          "drop" in judged
            ? judged.drop
            : !check.ok && check.reason !== "unresolved"
              ? new PushConfigDroppedError(check.reason, config.id, check.message)
              : undefined;
        if (drop !== undefined) {
          await this.configs.delete(config.taskId, config.id);
          this.#options.onError?.(drop, config.taskId);
          return false;
        }
        if (!check.ok || "drop" in judged) throw new Error(check.ok ? "unreachable" : check.message);
        const headers = judged.headers;
        if (config.token !== "")
          headers["x-sema-signature"] = signPush(config.token, (this.#options.now ?? Date.now)(), body);
        const status = await send(check.target, {
          headers,
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(this.#options.timeoutMs ?? 10_000)]),
        });
        if (status >= 200 && status < 300) return true;
        throw new Error(`webhook answered ${status}`);
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
