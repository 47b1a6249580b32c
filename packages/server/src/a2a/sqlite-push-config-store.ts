/**
 * `SqlitePushConfigStore`: A2A push configs in their own table, by default in the task store's
 * SQLite file (one file to back up). Created here under a name no store migration uses, as
 * `SqliteTokenStore` does; a subpath export (`@sema-agent/server/sqlite-a2a-push`), so only a
 * deployment on SQLite loads the driver.
 *
 * @module @sema-agent/server/sqlite-a2a-push
 */
// Through the SQLite package's loader, as the token store: a static `node:sqlite` import here
// would print Node 22's ExperimentalWarning whenever this entry is imported before the store.
import { type DatabaseSync, openConnection } from "@sema-agent/sqlite/driver";
import { PUSH_CONFIG_COLUMNS, pushConfigValues } from "./push-config-rows.ts";
import type { PushConfig, PushConfigStore } from "./push-config-store.ts";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS server_a2a_push_configs (
    task_id TEXT NOT NULL,
    config_id TEXT NOT NULL,
    principal TEXT NOT NULL,
    url TEXT NOT NULL,
    token TEXT NOT NULL,
    authentication TEXT,
    created_at TEXT NOT NULL,
    delivered_seq INTEGER NOT NULL,
    token_id TEXT,
    PRIMARY KEY (task_id, config_id)
  ) STRICT`;

/** A table made before `token_id` existed gains it (null: a config of an unknown token, still delivered). */
function migrate(db: DatabaseSync): void {
  const hasTokenId = () =>
    (db.prepare("PRAGMA table_info(server_a2a_push_configs)").all() as unknown as { name: string }[]).some(
      (column) => column.name === "token_id",
    );
  if (hasTokenId()) return;
  try {
    db.exec("ALTER TABLE server_a2a_push_configs ADD COLUMN token_id TEXT");
  } catch (error) {
    // Another connection added it first.
    if (!hasTokenId()) throw error;
  }
}

interface Row {
  task_id: string;
  config_id: string;
  principal: string;
  url: string;
  token: string;
  authentication: string | null;
  created_at: string;
  delivered_seq: number;
  token_id: string | null;
}

function configOf(row: Row): PushConfig {
  const config: PushConfig = {
    taskId: row.task_id,
    id: row.config_id,
    principal: row.principal,
    url: row.url,
    token: row.token,
    createdAt: row.created_at,
    deliveredSeq: Number(row.delivered_seq),
  };
  if (row.token_id !== null) config.tokenId = row.token_id;
  if (row.authentication !== null)
    config.authentication = JSON.parse(row.authentication) as PushConfig["authentication"] & object;
  return config;
}

/**
 * Configs in their own table, by default in the task store's SQLite file (one file to back up).
 * Created here under a name no store migration uses, as `SqliteTokenStore` does.
 */
export class SqlitePushConfigStore implements PushConfigStore {
  readonly #db: DatabaseSync;

  /** `path`: the database file, usually the task store's; `busyTimeoutMs` default 5000. */
  constructor(options: { path: string; busyTimeoutMs?: number }) {
    this.#db = openConnection(options.path, {
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      setup: SCHEMA,
    });
    migrate(this.#db);
  }

  async put(config: PushConfig): Promise<void> {
    this.#db
      .prepare(
        `INSERT OR REPLACE INTO server_a2a_push_configs (${PUSH_CONFIG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...pushConfigValues(config));
  }
  async get(taskId: string, id: string): Promise<PushConfig | undefined> {
    const row = this.#db
      .prepare(`SELECT ${PUSH_CONFIG_COLUMNS} FROM server_a2a_push_configs WHERE task_id = ? AND config_id = ?`)
      .get(taskId, id) as Row | undefined;
    return row === undefined ? undefined : configOf(row);
  }
  async list(taskId: string): Promise<PushConfig[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${PUSH_CONFIG_COLUMNS} FROM server_a2a_push_configs WHERE task_id = ? ORDER BY created_at, config_id`,
      )
      .all(taskId) as unknown as Row[];
    return rows.map(configOf);
  }
  async delete(taskId: string, id: string): Promise<boolean> {
    const result = this.#db
      .prepare("DELETE FROM server_a2a_push_configs WHERE task_id = ? AND config_id = ?")
      .run(taskId, id);
    return Number(result.changes) > 0;
  }
  async all(): Promise<PushConfig[]> {
    const rows = this.#db
      .prepare(`SELECT ${PUSH_CONFIG_COLUMNS} FROM server_a2a_push_configs ORDER BY created_at, task_id, config_id`)
      .all() as unknown as Row[];
    return rows.map(configOf);
  }
  async advance(taskId: string, id: string, seq: number): Promise<void> {
    this.#db
      .prepare(
        "UPDATE server_a2a_push_configs SET delivered_seq = ? WHERE task_id = ? AND config_id = ? AND delivered_seq < ?",
      )
      .run(seq, taskId, id, seq);
  }
  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
