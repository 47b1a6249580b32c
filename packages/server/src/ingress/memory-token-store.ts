/** `MemoryTokenStore`: the `TokenStore` for tests and throwaway servers; it keeps hashes, like every store. */
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

export class MemoryTokenStore implements TokenStore {
  readonly #byHash = new Map<string, TokenRecord>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async create(input: CreateTokenInput): Promise<CreatedToken> {
    const { principal, actorId, roles } = normalizeCreateInput(input);
    const { tokenId, token } = mintToken();
    const record: TokenRecord = { tokenId, principal, actorId, roles, createdAt: new Date(this.#now()).toISOString() };
    this.#byHash.set(hashToken(token), record);
    return { token, record: { ...record, roles: [...roles] } };
  }

  async verify(token: string): Promise<TokenRecord | undefined> {
    if (tokenIdOf(token) === undefined) return undefined;
    const record = this.#byHash.get(hashToken(token));
    return record === undefined || record.revokedAt !== undefined ? undefined : { ...record, roles: [...record.roles] };
  }

  async revoke(tokenIdOrToken: string): Promise<boolean> {
    const tokenId = tokenIdOf(tokenIdOrToken) ?? tokenIdOrToken;
    for (const record of this.#byHash.values()) {
      if (record.tokenId !== tokenId || record.revokedAt !== undefined) continue;
      record.revokedAt = new Date(this.#now()).toISOString();
      return true;
    }
    return false;
  }

  async list(): Promise<TokenRecord[]> {
    return [...this.#byHash.values()].map((record) => ({ ...record, roles: [...record.roles] }));
  }

  async close(): Promise<void> {}
}
