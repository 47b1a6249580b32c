/**
 * One dedicated connection per store that LISTENs on `sema_events` and wakes the store's watchers
 * of the task named in each notification. It is only an accelerator: watchers also wake after a
 * bounded poll, so a notification lost while this connection is down only delays delivery.
 */
import type { ChangeNotifier } from "@sema-agent/core/store-kit";
import type { Notification, Pool, PoolClient } from "pg";

/** The channel every store NOTIFYs after an append; the payload is `<taskId>:<seq>`. */
export const CHANNEL = "sema_events";
/** The channel for tasks that may have become runnable; the payload is `<schema>:<taskId>`. */
export const RUNNABLE_CHANNEL = "sema_runnable";

export class EventListener {
  readonly #pool: Pool;
  readonly #notifier: ChangeNotifier;
  #client: PoolClient | undefined;
  #connecting: Promise<void> | undefined;
  #stopped = false;
  readonly #runnable = new Set<{ schema: string; listener: (taskId: string) => void }>();

  constructor(pool: Pool, notifier: ChangeNotifier) {
    this.#pool = pool;
    this.#notifier = notifier;
  }

  /** Whether a connection listens now (so every append's notice reaches this store). */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  /** Start listening if not already; failures are swallowed (the poll covers them) and retried later. */
  ensure(): void {
    if (this.#stopped || this.#client !== undefined || this.#connecting !== undefined) return;
    this.#connecting = this.#connect().finally(() => {
      this.#connecting = undefined;
    });
  }

  /** Resolves once a listen attempt in progress has finished (for tests that need it armed). */
  async settled(): Promise<void> {
    await this.#connecting;
  }

  async #connect(): Promise<void> {
    let client: PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      const onNotification = (message: Notification) => {
        const payload = message.payload ?? "";
        if (message.channel === RUNNABLE_CHANNEL) return this.#runnableNotice(payload);
        const colon = payload.lastIndexOf(":");
        if (colon === -1) return this.#notifier.notify(payload);
        // With the append's seq, the notice of this store's own append (notified already) wakes nobody.
        const seq = Number(payload.slice(colon + 1));
        this.#notifier.notify(payload.slice(0, colon), Number.isSafeInteger(seq) ? seq : undefined);
      };
      const onError = () => this.#drop(client);
      client.on("notification", onNotification);
      client.on("error", onError);
      await client.query(`LISTEN ${CHANNEL}; LISTEN ${RUNNABLE_CHANNEL}`);
      if (this.#stopped) return this.#drop(client);
      this.#client = client;
      // Anything appended while no connection listened is found by the reads the wake causes.
      this.#notifier.notifyAll();
      for (const { listener } of this.#runnable) listener("");
    } catch {
      if (client !== undefined) this.#drop(client);
    }
  }

  /** Whether anyone waits for runnable notices (so the connection should be kept up). */
  get wantsRunnable(): boolean {
    return this.#runnable.size > 0;
  }

  /** Subscribe to runnable notices for one schema; returns the unsubscribe function. */
  onRunnable(schema: string, listener: (taskId: string) => void): () => void {
    const entry = { schema, listener };
    this.#runnable.add(entry);
    return () => this.#runnable.delete(entry);
  }

  #runnableNotice(payload: string): void {
    const colon = payload.indexOf(":");
    const schema = payload.slice(0, colon);
    const taskId = payload.slice(colon + 1);
    for (const entry of this.#runnable) {
      if (entry.schema !== schema) continue;
      try {
        entry.listener(taskId);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  #drop(client: PoolClient | undefined): void {
    if (client === undefined) return;
    client.removeAllListeners("notification");
    client.removeAllListeners("error");
    // Destroy it instead of handing it back: it may be broken, and a pooled client must not LISTEN.
    client.on("error", () => undefined);
    if (this.#client === client) this.#client = undefined;
    try {
      client.release(true);
    } catch {
      // Already released.
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#connecting;
    const client = this.#client;
    if (client === undefined) return;
    await client.query("UNLISTEN *").catch(() => undefined);
    this.#drop(client);
  }
}
