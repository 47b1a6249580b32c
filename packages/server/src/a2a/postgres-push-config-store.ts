/**
 * `PostgresPushConfigStore`: A2A push configs and their delivery cursors in a table beside the
 * PostgreSQL task store, on any `pg.Pool`-shaped object (usually the store's own pool), like
 * `PostgresTokenStore`. The table is created on first use under an advisory lock. A subpath
 * export (`@sema-agent/server/postgres-a2a-push`).
 *
 * @module @sema-agent/server/postgres-a2a-push
 */
import type { SqlPool } from "../ingress/postgres-token-store.ts";
import { PUSH_CONFIG_COLUMNS, pushConfigValues } from "./push-config-rows.ts";
import type { PushConfig, PushConfigStore } from "./push-config-store.ts";

interface Row {
  task_id: string;
  config_id: string;
  principal: string;
  url: string;
  token: string;
  authentication: { scheme: string; credentials: string } | null;
  created_at: Date;
  delivered_seq: string | number;
  token_id: string | null;
}

function configOf(row: Row): PushConfig {
  const config: PushConfig = {
    taskId: row.task_id,
    id: row.config_id,
    principal: row.principal,
    url: row.url,
    token: row.token,
    createdAt: row.created_at.toISOString(),
    deliveredSeq: Number(row.delivered_seq),
  };
  if (row.token_id !== null) config.tokenId = row.token_id;
  if (row.authentication !== null) config.authentication = row.authentication;
  return config;
}

/** Push configs in `<schema>.server_a2a_push_configs`, on the task store's pool. */
export class PostgresPushConfigStore implements PushConfigStore {
  readonly #pool: SqlPool;
  readonly #table: string;
  readonly #ready: Promise<void>;

  /** `schema`: the task store's (default `sema`). */
  constructor(options: { pool: SqlPool; schema?: string }) {
    const schema = options.schema ?? "sema";
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new TypeError(`invalid schema name ${JSON.stringify(schema)}`);
    this.#pool = options.pool;
    this.#table = `"${schema}".server_a2a_push_configs`;
    this.#ready = this.#pool
      .query(
        `SELECT pg_advisory_xact_lock(hashtext('sema_server_a2a_push_configs'));
         CREATE SCHEMA IF NOT EXISTS "${schema}";
         CREATE TABLE IF NOT EXISTS ${this.#table} (
           task_id text NOT NULL,
           config_id text NOT NULL,
           principal text NOT NULL,
           url text NOT NULL,
           token text NOT NULL,
           authentication jsonb,
           created_at timestamptz NOT NULL,
           delivered_seq bigint NOT NULL,
           PRIMARY KEY (task_id, config_id)
         );
         ALTER TABLE ${this.#table} ADD COLUMN IF NOT EXISTS token_id text`,
      )
      .then(() => undefined);
    this.#ready.catch(() => undefined);
  }

  async #rows(text: string, values: unknown[]): Promise<{ rows: Row[]; count: number }> {
    await this.#ready;
    const result = await this.#pool.query(text, values);
    return { rows: result.rows as Row[], count: result.rowCount ?? 0 };
  }

  async put(config: PushConfig): Promise<void> {
    await this.#rows(
      `INSERT INTO ${this.#table} (${PUSH_CONFIG_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (task_id, config_id) DO UPDATE SET principal = EXCLUDED.principal, url = EXCLUDED.url,
         token = EXCLUDED.token, authentication = EXCLUDED.authentication, created_at = EXCLUDED.created_at,
         delivered_seq = EXCLUDED.delivered_seq, token_id = EXCLUDED.token_id`,
      pushConfigValues(config),
    );
  }
  async get(taskId: string, id: string): Promise<PushConfig | undefined> {
    const { rows } = await this.#rows(
      `SELECT ${PUSH_CONFIG_COLUMNS} FROM ${this.#table} WHERE task_id = $1 AND config_id = $2`,
      [taskId, id],
    );
    return rows[0] === undefined ? undefined : configOf(rows[0]);
  }
  async list(taskId: string): Promise<PushConfig[]> {
    const { rows } = await this.#rows(
      `SELECT ${PUSH_CONFIG_COLUMNS} FROM ${this.#table} WHERE task_id = $1 ORDER BY created_at, config_id`,
      [taskId],
    );
    return rows.map(configOf);
  }
  async delete(taskId: string, id: string): Promise<boolean> {
    const { count } = await this.#rows(`DELETE FROM ${this.#table} WHERE task_id = $1 AND config_id = $2`, [
      taskId,
      id,
    ]);
    return count > 0;
  }
  async all(): Promise<PushConfig[]> {
    const { rows } = await this.#rows(
      `SELECT ${PUSH_CONFIG_COLUMNS} FROM ${this.#table} ORDER BY created_at, task_id, config_id`,
      [],
    );
    return rows.map(configOf);
  }
  async advance(taskId: string, id: string, seq: number): Promise<void> {
    await this.#rows(
      `UPDATE ${this.#table} SET delivered_seq = $3 WHERE task_id = $1 AND config_id = $2 AND delivered_seq < $3`,
      [taskId, id, seq],
    );
  }
  /** The pool belongs to whoever passed it: nothing to release here. */
  async close(): Promise<void> {
    await this.#ready.catch(() => undefined);
  }
}
