/**
 * The store's hold on its database: the pool (its own or the caller's), the schema migration
 * every call waits for, and the ways to run statements — one query, one query on the priority lane,
 * or a transaction on one client that any failure rolls back. Failures come out as the port's
 * typed errors.
 */
import { StoreUnavailableError } from "@sema-agent/core/protocol";
import type { WriteLane } from "@sema-agent/core/store-kit";
import pg from "pg";
import { quoteSchema, toStoreError } from "./connection.ts";
import type { Queries } from "./queries.ts";
import { migrate } from "./schema.ts";

const noop = () => undefined;

/**
 * Connections of the priority lane when the store makes its own pool: lease renewals, claims and
 * the reads and writes of a leg a person attends (`poolOf`). At ten thousand legs, thousands of reads and
 * appends queue for the main pool; a renewal waiting behind them would come after its lease
 * expired, and a person's steer waited seconds. Two, so one slow batch does not hold up the next.
 */
const PRIORITY_CONNECTIONS = 2;

/** Which pool a statement runs on: the main one, or the priority lane's (see `PRIORITY_CONNECTIONS`). */
export type PoolLane = "main" | "priority";

/**
 * The pool for work in `lane`: the priority lane's for an attended one (a person's word, or a leg
 * between it and the request that carries it), the main pool otherwise. A new task's first step
 * (`person`) goes ahead in the queues but not there: ten thousand new tasks at once would starve
 * the lease renewals that share it.
 */
export function poolOf(lane: WriteLane | undefined): PoolLane {
  return lane === "attended" ? "priority" : "main";
}

/** A client inside a transaction, with the store's statements. */
export type Tx = { client: pg.PoolClient; sql: Queries };

export class Database {
  readonly pool: pg.Pool;
  readonly #ownsPool: boolean;
  /** The priority lane: a pool of its own beside the store's, or the caller's pool when it gave one. */
  readonly #priorityPool: pg.Pool;
  readonly #schema: string;
  readonly #sql: Queries;
  readonly ready: Promise<void>;
  #closed = false;

  constructor(options: { connectionString?: string; pool?: pg.Pool }, schema: string, sql: Queries) {
    this.#schema = schema;
    this.#sql = sql;
    if (options.pool !== undefined) {
      this.pool = options.pool;
      this.#ownsPool = false;
      // The caller sized its pool; taking more connections from its server is not ours to decide.
      this.#priorityPool = options.pool;
    } else if (options.connectionString !== undefined) {
      this.pool = new pg.Pool({ connectionString: options.connectionString });
      this.#priorityPool = new pg.Pool({ connectionString: options.connectionString, max: PRIORITY_CONNECTIONS });
      this.#ownsPool = true;
    } else {
      throw new StoreUnavailableError("PostgresStore needs a connectionString or a pool");
    }
    // An idle client that loses its connection emits here; without a listener it would crash the process.
    if (this.#ownsPool) {
      this.pool.on("error", noop);
      this.#priorityPool.on("error", noop);
    }
    this.ready = this.#migrate();
    // Failures surface through ready and every call; this only keeps them from being unhandled.
    this.ready.catch(noop);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #migrate(): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      client.on("error", noop);
      await migrate(client, this.#schema, quoteSchema(this.#schema));
      client.off("error", noop);
      client.release();
    } catch (error) {
      client?.release(true);
      throw toStoreError(error, "migrating");
    }
  }

  /** Wait for the migration; `StoreUnavailable` once closed. */
  async open(): Promise<void> {
    if (this.#closed) throw new StoreUnavailableError(`the PostgreSQL store (schema ${this.#schema}) is closed`);
    await this.ready;
    if (this.#closed) throw new StoreUnavailableError(`the PostgreSQL store (schema ${this.#schema}) is closed`);
  }

  /** A query on the main pool, or on the priority lane's with `lane` `priority`. */
  async query<R extends pg.QueryResultRow>(text: string, params: unknown[], lane: PoolLane = "main"): Promise<R[]> {
    return this.#run(lane === "priority" ? this.#priorityPool : this.pool, text, params);
  }

  /**
   * A query on the priority lane, which no routine read or append queues on (with the store's own
   * pool): lease renewals, claims, and an attended leg's reads and writes, which must not wait behind
   * thousands of a busy node's legs.
   */
  async priorityQuery<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]> {
    return this.#run(this.#priorityPool, text, params);
  }

  async #run<R extends pg.QueryResultRow>(pool: pg.Pool, text: string, params: unknown[]): Promise<R[]> {
    await this.open();
    try {
      return (await pool.query<R>(text, params)).rows;
    } catch (error) {
      throw toStoreError(error, "query");
    }
  }

  /**
   * Run `work` in a transaction on one client; any failure rolls it back. On the `priority` lane
   * (a claim, a person's append) it takes no connection routine reads and appends are queued for.
   */
  async tx<T>(work: (tx: Tx) => Promise<T>, lane: PoolLane = "main"): Promise<T> {
    await this.open();
    let client: pg.PoolClient;
    try {
      client = await (lane === "priority" ? this.#priorityPool : this.pool).connect();
    } catch (error) {
      throw toStoreError(error, "connect");
    }
    let broken = false;
    // A connection lost between statements is reported on the client, not to the pending query;
    // unheard it would crash the process. The next statement fails and rolls the work back.
    const onLost = () => {
      broken = true;
    };
    client.on("error", onLost);
    try {
      await client.query("BEGIN");
      const result = await work({ client, sql: this.#sql });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw toStoreError(error, "transaction");
    } finally {
      client.off("error", onLost);
      client.release(broken ? true : undefined);
    }
  }

  /** Mark closed (later calls fail), wait for the migration to settle, end the pool if it is ours. */
  async close(beforeEnd: () => Promise<void>): Promise<void> {
    this.#closed = true;
    await this.ready.catch(noop);
    await beforeEnd();
    if (this.#ownsPool) await Promise.all([this.pool.end().catch(noop), this.#priorityPool.end().catch(noop)]);
  }
}
