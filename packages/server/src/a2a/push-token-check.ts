/**
 * Whether the token that registered a push config is still live, for the dispatcher before each
 * delivery: a webhook stops with the token that made it, as an open `/v1` stream does. The token
 * store has no lookup by id, so this reads its list, afresh on every call (deliveries happen at
 * state changes only), so a check made after a revocation always sees it.
 */
import type { TokenStore } from "../ingress/token-store.ts";

/**
 * `(tokenId) → live?` over `tokens`: false for a revoked or unknown token. A failing store
 * rejects (the delivery is retried; a config is dropped only for a token known to be dead).
 */
export function tokenLiveness(tokens: Pick<TokenStore, "list">): (tokenId: string) => Promise<boolean> {
  return async (tokenId) => {
    const record = (await tokens.list()).find((entry) => entry.tokenId === tokenId);
    return record !== undefined && record.revokedAt === undefined;
  };
}
