/** `MemoryTokenStore`: the `TokenStore` for tests and throwaway servers; it keeps hashes, like every store. */

import { type RevocationListener, RevocationListeners } from "./revocation-listeners.ts";
import {
  type CreatedToken,
  type CreateTokenInput,
  hashToken,
  mintToken,
  normalizeCreateInput,
  type TokenRecord,
  type TokenStore,
  tokenIdOf,
} from "./token-store.ts";

/** A record no caller can change the stored one through. */
function copy(record: TokenRecord): TokenRecord {
  const out: TokenRecord = { ...record, roles: [...record.roles] };
  if (record.quotas !== undefined) out.quotas = { ...record.quotas };
  return out;
}

export class MemoryTokenStore implements TokenStore {
  readonly #revocations = new RevocationListeners();
  readonly #byHash = new Map<string, TokenRecord>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async create(input: CreateTokenInput): Promise<CreatedToken> {
    const { principal, actorId, roles, quotas } = normalizeCreateInput(input);
    const { tokenId, token } = mintToken();
    const record: TokenRecord = { tokenId, principal, actorId, roles, createdAt: new Date(this.#now()).toISOString() };
    if (quotas !== undefined) record.quotas = quotas;
    this.#byHash.set(await hashToken(token), record);
    return { token, record: copy(record) };
  }

  async verify(token: string): Promise<TokenRecord | undefined> {
    if (tokenIdOf(token) === undefined) return undefined;
    const record = this.#byHash.get(await hashToken(token));
    return record === undefined || record.revokedAt !== undefined ? undefined : copy(record);
  }

  async revoke(tokenIdOrToken: string): Promise<boolean> {
    const tokenId = tokenIdOf(tokenIdOrToken) ?? tokenIdOrToken;
    for (const record of this.#byHash.values()) {
      if (record.tokenId !== tokenId || record.revokedAt !== undefined) continue;
      record.revokedAt = new Date(this.#now()).toISOString();
      this.#revocations.emit(tokenId);
      return true;
    }
    return false;
  }

  /** Tell `listener` of each token this store revokes, before `revoke` returns (see {@link TokenStore.onRevoke}). */
  onRevoke(listener: RevocationListener): () => void {
    return this.#revocations.subscribe(listener);
  }

  async list(): Promise<TokenRecord[]> {
    return [...this.#byHash.values()].map(copy);
  }

  async close(): Promise<void> {}
}
