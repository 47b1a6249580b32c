/** The first start of a server: with no token at all, one for principal `local` with every role. */
import { type CreatedToken, ROLES, type TokenStore } from "./token-store.ts";

/** The principal (and actor) of the first token a fresh server creates: `local`, the principal `startTask` defaults to. */
export const LOCAL_PRINCIPAL = "local";

/**
 * Create the `local` token when the store has no token (revoked ones count: a server whose
 * tokens were all revoked stays locked). Returns it, to be shown once; undefined otherwise.
 */
export async function ensureFirstToken(tokens: TokenStore): Promise<CreatedToken | undefined> {
  const input = { principal: LOCAL_PRINCIPAL, actorId: LOCAL_PRINCIPAL, roles: ROLES };
  // A shared store decides atomically: two servers starting together must not both mint one.
  if (tokens.createFirst !== undefined) return tokens.createFirst(input);
  if ((await tokens.list()).length > 0) return undefined;
  return tokens.create(input);
}
