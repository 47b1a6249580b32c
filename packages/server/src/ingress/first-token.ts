/** The first start of a server: with no token at all, one for principal `local` with every role. */
import { type CreatedToken, ROLES, type TokenStore } from "./token-store.ts";

export const LOCAL_PRINCIPAL = "local";

/**
 * Create the `local` token when the store has no token (revoked ones count: a server whose
 * tokens were all revoked stays locked). Returns it, to be shown once; undefined otherwise.
 */
export async function ensureFirstToken(tokens: TokenStore): Promise<CreatedToken | undefined> {
  if ((await tokens.list()).length > 0) return undefined;
  return tokens.create({ principal: LOCAL_PRINCIPAL, actorId: LOCAL_PRINCIPAL, roles: ROLES });
}
