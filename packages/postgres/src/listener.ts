/**
 * One dedicated connection per store that LISTENs on `sema_events` and wakes the store's watchers
 * of the task named in each notification. It is only an accelerator: watchers also wake after a
 * bounded poll, so a notification lost while this connection is down only delays delivery.
 */
import type { ChangeNotifier } from "@sema-agent/core";
import type { Notification, Pool, PoolClient } from "pg";

/** The channel every store NOTIFYs after an append; the payload is `<taskId>:<seq>`. */
export const CHANNEL = "sema_events";

export class EventListener {
  readonly #pool: Pool;
  readonly #notifier: ChangeNotifier;
  #client: PoolClient | undefined;
  #connecting: Promise<void> | undefined;
  #stopped = false;

  constructor(pool: Pool, notifier: ChangeNotifier) {
    this.#pool = pool;
    this.#notifier = notifier;
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
        const colon = payload.lastIndexOf(":");
        this.#notifier.notify(colon === -1 ? payload : payload.slice(0, colon));
      };
      const onError = () => this.#drop(client);
      client.on("notification", onNotification);
      client.on("error", onError);
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.#stopped) return this.#drop(client);
      this.#client = client;
      // Anything appended while no connection listened is found by the reads the wake causes.
      this.#notifier.notifyAll();
    } catch {
      if (client !== undefined) this.#drop(client);
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
    await client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
    this.#drop(client);
  }
}
