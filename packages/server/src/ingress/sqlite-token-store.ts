/**
 * `SqliteTokenStore`: token records in their own table, by default in the same SQLite file as the
 * task store, so an embedded server is still one file to back up. The table is created here (not
 * by the store's migrations, which belong to `@sema-agent/sqlite`) under a name no store migration
 * uses; only SHA-256 hashes of the secrets are written.
 *
 * @module @sema-agent/server/sqlite-tokens
 */
// Through the SQLite package's loader: a static `node:sqlite` import here would print Node 22's
// ExperimentalWarning whenever this entry is imported before the store.
import type { Quotas } from "@sema-agent/core/quotas";
import { type DatabaseSync, openConnection } from "@sema-agent/sqlite/driver";
import { type RevocationListener, RevocationListeners } from "./revocation-listeners.ts";
import {
  type CreatedToken,
  type CreateTokenInput,
  hashToken,
  mintToken,
  normalizeCreateInput,
  type Role,
  type TokenRecord,
  type TokenStore,
  tokenIdOf,
} from "./token-store.ts";

/** Where a `SqliteTokenStore` keeps its table, its clock, and how long it waits for a write lock. */
export interface SqliteTokenStoreOptions {
  /** The database file (created if missing): usually the task store's own file. */
  path: string;
  /** Milliseconds since the epoch, for `createdAt` and `revokedAt`. Default `Date.now`. */
  now?: () => number;
  /** How long to wait for another connection's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
}

interface TokenRow {
  token_id: string;
  principal: string;
  actor_id: string;
  roles: string;
  created_at: string;
  revoked_at: string | null;
  quotas: string | null;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS server_tokens (
    token_id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    principal TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    roles TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT,
    quotas TEXT
  ) STRICT`;

const COLUMNS = "token_id, principal, actor_id, roles, created_at, revoked_at, quotas";

function recordOf(row: TokenRow): TokenRecord {
  const record: TokenRecord = {
    tokenId: row.token_id,
    principal: row.principal,
    actorId: row.actor_id,
    roles: JSON.parse(row.roles) as Role[],
    createdAt: row.created_at,
  };
  if (row.revoked_at !== null) record.revokedAt = row.revoked_at;
  if (row.quotas !== null) record.quotas = JSON.parse(row.quotas) as Quotas;
  return record;
}

/**
 * Tables made before tokens carried quotas get the column. Two processes opening an old file at
 * once may both try: the loser's "duplicate column" is the column being there.
 */
function addQuotasColumn(db: DatabaseSync): void {
  const columns = db.prepare("PRAGMA table_info(server_tokens)").all() as { name: string }[];
  if (columns.some((column) => column.name === "quotas")) return;
  try {
    db.exec("ALTER TABLE server_tokens ADD COLUMN quotas TEXT");
  } catch (error) {
    if (!String(error).includes("duplicate column")) throw error;
  }
}

export class SqliteTokenStore implements TokenStore {
  readonly #revocations = new RevocationListeners();
  readonly #db: DatabaseSync;
  readonly #now: () => number;

  constructor(options: SqliteTokenStoreOptions) {
    this.#now = options.now ?? Date.now;
    this.#db = openConnection(options.path, {
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      setup: SCHEMA,
    });
    addQuotasColumn(this.#db);
  }

  async create(input: CreateTokenInput): Promise<CreatedToken> {
    const { principal, actorId, roles, quotas } = normalizeCreateInput(input);
    const { tokenId, token } = mintToken();
    const createdAt = new Date(this.#now()).toISOString();
    const tokenHash = await hashToken(token);
    this.#db
      .prepare(
        "INSERT INTO server_tokens (token_id, token_hash, principal, actor_id, roles, created_at, quotas) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        tokenId,
        tokenHash,
        principal,
        actorId,
        JSON.stringify(roles),
        createdAt,
        quotas === undefined ? null : JSON.stringify(quotas),
      );
    const record: TokenRecord = { tokenId, principal, actorId, roles, createdAt };
    if (quotas !== undefined) record.quotas = quotas;
    return { token, record };
  }

  async verify(token: string): Promise<TokenRecord | undefined> {
    if (tokenIdOf(token) === undefined) return undefined;
    const tokenHash = await hashToken(token);
    const row = this.#db
      .prepare(`SELECT ${COLUMNS} FROM server_tokens WHERE token_hash = ? AND revoked_at IS NULL`)
      .get(tokenHash) as TokenRow | undefined;
    return row === undefined ? undefined : recordOf(row);
  }

  async revoke(tokenIdOrToken: string): Promise<boolean> {
    const tokenId = tokenIdOf(tokenIdOrToken) ?? tokenIdOrToken;
    const result = this.#db
      .prepare("UPDATE server_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL")
      .run(new Date(this.#now()).toISOString(), tokenId);
    const revoked = Number(result.changes) > 0;
    if (revoked) this.#revocations.emit(tokenId);
    return revoked;
  }

  /** Tell `listener` of each token this store revokes, before `revoke` returns (see {@link TokenStore.onRevoke}). */
  onRevoke(listener: RevocationListener): () => void {
    return this.#revocations.subscribe(listener);
  }

  async list(): Promise<TokenRecord[]> {
    const rows = this.#db
      .prepare(`SELECT ${COLUMNS} FROM server_tokens ORDER BY created_at, token_id`)
      .all() as unknown as TokenRow[];
    return rows.map(recordOf);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
