/**
 * The bearer-token ingress: `Authorization: Bearer sema_…` → the token's principal, its actor as a
 * verified assertion (`issuer: "sema-token"`) and its roles; with `X-Sema-Speaker`, the relayed
 * name as an unverified actor issued by the token's actor.
 */
import { HttpError } from "../http-error.ts";
import type { Caller, Credentials, Ingress } from "./caller.ts";
import { parseSpeaker } from "./speaker.ts";
import type { TokenStore } from "./token-store.ts";

/** The `issuer` of the verified actor a bearer token authenticates. */
export const TOKEN_ISSUER = "sema-token";

export interface TokenIngressOptions {
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /**
   * How long a `stillValid` answer is reused (default 250 ms): a thousand open streams of one
   * token cost one token-store lookup per interval, and a revocation — also one made by another
   * process on a shared store — is seen within it.
   */
  validityCacheMs?: number;
}

function unauthorized(message: string): HttpError {
  return new HttpError(401, "Unauthorized", message, { headers: { "WWW-Authenticate": 'Bearer realm="sema"' } });
}

/**
 * The bearer-token {@link Ingress} over `tokens`: `Authorization: Bearer sema_…` authenticates as
 * the token's principal, actor (verified, issuer {@link TOKEN_ISSUER}) and roles; with
 * `X-Sema-Speaker` the actor is the relayed name, unverified, issued by the token's actor. Open
 * streams recheck the token (answers cached `validityCacheMs`, default 250 ms).
 */
export function createTokenIngress(tokens: TokenStore, options: TokenIngressOptions = {}): Ingress {
  const now = options.now ?? Date.now;
  const cacheMs = options.validityCacheMs ?? 250;
  // tokenId → the last answer of `verify`, shared by every stream of that token.
  const checks = new Map<string, { at: number; valid: Promise<boolean> }>();
  const stillValid = (tokenId: string, token: string) => (): Promise<boolean> => {
    const at = now();
    const cached = checks.get(tokenId);
    if (cached !== undefined && at - cached.at < cacheMs) return cached.valid;
    // Stale entries of tokens no stream asks about any more go, so the cache stays small.
    if (checks.size > 1000) for (const [id, entry] of checks) if (at - entry.at >= cacheMs) checks.delete(id);
    const valid = tokens.verify(token).then(
      (record) => record !== undefined,
      () => false,
    );
    checks.set(tokenId, { at, valid });
    return valid;
  };
  return {
    async authenticate(credentials: Credentials): Promise<Caller> {
      const header = credentials.authorization;
      if (header === undefined || header === "") throw unauthorized("a bearer token is required");
      const match = /^Bearer +(\S+)\s*$/i.exec(header);
      const token = match?.[1];
      if (token === undefined) throw unauthorized("the Authorization header must be `Bearer <token>`");
      const record = await tokens.verify(token);
      if (record === undefined) throw unauthorized("the token is not valid");
      const roles = new Set(record.roles);
      const base = {
        principal: record.principal,
        roles,
        tokenId: record.tokenId,
        stillValid: stillValid(record.tokenId, token),
      };
      if (credentials.speaker === undefined)
        return { ...base, actor: { id: record.actorId, verified: true, issuer: TOKEN_ISSUER } };
      return { ...base, actor: { id: parseSpeaker(credentials.speaker), verified: false, issuer: record.actorId } };
    },
  };
}
