/**
 * Where push-notification configs live: a small table of their own (like the token stores), with
 * each config's delivery cursor, the seq of the last event its webhook acknowledged. The cursor
 * is what makes delivery durable: a dispatcher that starts reads every config and sends whatever
 * the log holds past its cursor, so a notification owed when the server died is sent after it
 * restarts, and one acknowledged before is not sent again.
 */
/** A registered webhook for one task. */
export interface PushConfig {
  taskId: string;
  /** Unique within its task. */
  id: string;
  /** The principal of the task (a config is only ever shown to it). */
  principal: string;
  url: string;
  /** The client's token: the key of the notifications' HMAC signature (never sent itself). */
  token: string;
  /**
   * The bearer token that registered the config: deliveries stop (the config is dropped) once it
   * is revoked. Absent on configs stored before this was recorded; those keep being delivered.
   */
  tokenId?: string;
  /** Credentials to send to the webhook (`Authorization: <scheme> <credentials>`). */
  authentication?: { scheme: string; credentials: string };
  createdAt: string;
  /** The seq of the last event delivered (or skipped as not owed) to this webhook. */
  deliveredSeq: number;
}

/** Durable push configs. Every method is keyed by task and config id. */
export interface PushConfigStore {
  /** Insert or replace the config `(taskId, id)`. */
  put(config: PushConfig): Promise<void>;
  /** The config `(taskId, id)`, if there is one. */
  get(taskId: string, id: string): Promise<PushConfig | undefined>;
  /** A task's configs, oldest first. */
  list(taskId: string): Promise<PushConfig[]>;
  /** Whether there was one to delete. */
  delete(taskId: string, id: string): Promise<boolean>;
  /** Every config with events still to deliver or watch for, for a dispatcher that starts. */
  all(): Promise<PushConfig[]>;
  /** Move a config's cursor forward (never back). */
  advance(taskId: string, id: string, seq: number): Promise<void>;
  /** Release what the store holds (a database handle); a pool passed in stays open. */
  close(): Promise<void>;
}

/** Configs in memory: for tests and servers without a database (not durable). */
export class MemoryPushConfigStore implements PushConfigStore {
  readonly #configs = new Map<string, PushConfig>();

  async put(config: PushConfig): Promise<void> {
    this.#configs.set(`${config.taskId}\u0000${config.id}`, { ...config });
  }
  async get(taskId: string, id: string): Promise<PushConfig | undefined> {
    const config = this.#configs.get(`${taskId}\u0000${id}`);
    return config === undefined ? undefined : { ...config };
  }
  async list(taskId: string): Promise<PushConfig[]> {
    return [...this.#configs.values()].filter((config) => config.taskId === taskId).map((config) => ({ ...config }));
  }
  async delete(taskId: string, id: string): Promise<boolean> {
    return this.#configs.delete(`${taskId}\u0000${id}`);
  }
  async all(): Promise<PushConfig[]> {
    return [...this.#configs.values()].map((config) => ({ ...config }));
  }
  async advance(taskId: string, id: string, seq: number): Promise<void> {
    const config = this.#configs.get(`${taskId}\u0000${id}`);
    if (config !== undefined && seq > config.deliveredSeq) config.deliveredSeq = seq;
  }
  async close(): Promise<void> {}
}
