/**
 * `PostgresTokenStore`: token records in a table beside the PostgreSQL task store, so every API
 * node of a deployment accepts the same tokens. It takes any `pg.Pool`-shaped object (usually the
 * task store's own pool), so this package needs no PostgreSQL driver; only SHA-256 hashes of the
 * secrets are written. The table is created on first use, under an advisory lock so that nodes
 * starting together do not race.
 *
 * @module @sema-agent/server/postgres-tokens
 */
import type { Quotas } from "@sema-agent/core/quotas";
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

/** The part of `pg.Pool` the store uses. */
export interface SqlPool {
  /** Run one parameterized statement (`$1`, `$2` …) and return its rows. */
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * The pool a `PostgresTokenStore` queries (usually the task store's, whose owner ends it) and the schema of its table.
 */
export interface PostgresTokenStoreOptions {
  pool: SqlPool;
  /** The schema of the table (the task store's). Default `sema`. */
  schema?: string;
}

interface TokenRow {
  token_id: string;
  principal: string;
  actor_id: string;
  roles: string[];
  created_at: Date;
  revoked_at: Date | null;
  quotas: Quotas | null;
}

const COLUMNS = "token_id, principal, actor_id, roles, created_at, revoked_at, quotas";

function recordOf(row: TokenRow): TokenRecord {
  const record: TokenRecord = {
    tokenId: row.token_id,
    principal: row.principal,
    actorId: row.actor_id,
    roles: row.roles as Role[],
    createdAt: row.created_at.toISOString(),
  };
  if (row.revoked_at !== null) record.revokedAt = row.revoked_at.toISOString();
  if (row.quotas !== null) record.quotas = row.quotas;
  return record;
}

export class PostgresTokenStore implements TokenStore {
  readonly #revocations = new RevocationListeners();
  readonly #pool: SqlPool;
  readonly #table: string;
  readonly #ready: Promise<void>;

  constructor(options: PostgresTokenStoreOptions) {
    const schema = options.schema ?? "sema";
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new TypeError(`invalid schema name ${JSON.stringify(schema)}`);
    this.#pool = options.pool;
    this.#table = `"${schema}".server_tokens`;
    // One statement, so the advisory lock taken by the first part holds until it has run.
    this.#ready = this.#pool
      .query(
        `SELECT pg_advisory_xact_lock(hashtext('sema_server_tokens'));
         CREATE SCHEMA IF NOT EXISTS "${schema}";
         CREATE TABLE IF NOT EXISTS ${this.#table} (
           token_id text PRIMARY KEY,
           token_hash text NOT NULL UNIQUE,
           principal text NOT NULL,
           actor_id text NOT NULL,
           roles text[] NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now(),
           revoked_at timestamptz
         );
         ALTER TABLE ${this.#table} ADD COLUMN IF NOT EXISTS first boolean NOT NULL DEFAULT false;
         ALTER TABLE ${this.#table} ADD COLUMN IF NOT EXISTS quotas jsonb;
         CREATE UNIQUE INDEX IF NOT EXISTS server_tokens_first ON ${this.#table} ((true)) WHERE first`,
      )
      .then(() => undefined);
    this.#ready.catch(() => undefined);
  }

  async #rows(text: string, values: unknown[]): Promise<{ rows: TokenRow[]; count: number }> {
    await this.#ready;
    const result = await this.#pool.query(text, values);
    return { rows: result.rows as TokenRow[], count: result.rowCount ?? 0 };
  }

  async create(input: CreateTokenInput): Promise<CreatedToken> {
    const { principal, actorId, roles, quotas } = normalizeCreateInput(input);
    const { tokenId, token } = mintToken();
    const { rows } = await this.#rows(
      `INSERT INTO ${this.#table} (token_id, token_hash, principal, actor_id, roles, quotas)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [
        tokenId,
        await hashToken(token),
        principal,
        actorId,
        roles,
        quotas === undefined ? null : JSON.stringify(quotas),
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error("token insert returned no row");
    return { token, record: recordOf(row) };
  }

  /**
   * The first token, only on an empty table. Two servers that both see it empty both try; the
   * unique index on the `first` row lets one insert and makes the other's a no-op.
   */
  async createFirst(input: CreateTokenInput): Promise<CreatedToken | undefined> {
    const { principal, actorId, roles, quotas } = normalizeCreateInput(input);
    const { tokenId, token } = mintToken();
    const { rows } = await this.#rows(
      `INSERT INTO ${this.#table} (token_id, token_hash, principal, actor_id, roles, first, quotas)
       SELECT $1, $2, $3, $4, $5, true, $6 WHERE NOT EXISTS (SELECT 1 FROM ${this.#table})
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [
        tokenId,
        await hashToken(token),
        principal,
        actorId,
        roles,
        quotas === undefined ? null : JSON.stringify(quotas),
      ],
    );
    const row = rows[0];
    return row === undefined ? undefined : { token, record: recordOf(row) };
  }

  async verify(token: string): Promise<TokenRecord | undefined> {
    if (tokenIdOf(token) === undefined) return undefined;
    const { rows } = await this.#rows(
      `SELECT ${COLUMNS} FROM ${this.#table} WHERE token_hash = $1 AND revoked_at IS NULL`,
      [await hashToken(token)],
    );
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async revoke(tokenIdOrToken: string): Promise<boolean> {
    const tokenId = tokenIdOf(tokenIdOrToken) ?? tokenIdOrToken;
    const { count } = await this.#rows(
      `UPDATE ${this.#table} SET revoked_at = now() WHERE token_id = $1 AND revoked_at IS NULL`,
      [tokenId],
    );
    if (count > 0) this.#revocations.emit(tokenId);
    return count > 0;
  }

  /** Tell `listener` of each token this store revokes, before `revoke` returns (see {@link TokenStore.onRevoke}). */
  onRevoke(listener: RevocationListener): () => void {
    return this.#revocations.subscribe(listener);
  }

  async list(): Promise<TokenRecord[]> {
    const { rows } = await this.#rows(`SELECT ${COLUMNS} FROM ${this.#table} ORDER BY created_at, token_id`, []);
    return rows.map(recordOf);
  }

  /** The pool belongs to whoever passed it: nothing to release here. */
  async close(): Promise<void> {
    await this.#ready.catch(() => undefined);
  }
}
