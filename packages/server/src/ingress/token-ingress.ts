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
 * streams recheck the token (answers cached `validityCacheMs`, default 250 ms), and when the store
 * tells of its revocations (`TokenStore.onRevoke`) a revocation made in this process ends them
 * before `revoke` returns.
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
  // tokenId → what its open streams asked to be told of its revocation. The store is subscribed
  // to only while some stream listens, so an idle server holds nothing.
  const watchers = new Map<string, Set<() => void>>();
  let unsubscribeStore: (() => void) | undefined;
  const revoked = (tokenId: string) => {
    // Every later check of this token says no at once, without waiting for the cache to age.
    checks.set(tokenId, { at: now(), valid: Promise.resolve(false) });
    const listeners = watchers.get(tokenId);
    watchers.delete(tokenId);
    if (watchers.size === 0) {
      unsubscribeStore?.();
      unsubscribeStore = undefined;
    }
    for (const listener of listeners ?? [])
      try {
        listener();
      } catch (error) {
        console.error("sema server: ending a revoked token's stream failed", error);
      }
  };
  const onRevoked =
    tokens.onRevoke === undefined
      ? undefined
      : (tokenId: string) =>
          (listener: () => void): (() => void) => {
            unsubscribeStore ??= tokens.onRevoke?.(revoked);
            const set = watchers.get(tokenId) ?? new Set<() => void>();
            watchers.set(tokenId, set);
            // A wrapper per subscription: the same function subscribed twice is removed once per call.
            const entry = () => listener();
            set.add(entry);
            return () => {
              const current = watchers.get(tokenId);
              if (current === undefined || !current.delete(entry) || current.size > 0) return;
              watchers.delete(tokenId);
              if (watchers.size > 0) return;
              unsubscribeStore?.();
              unsubscribeStore = undefined;
            };
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
        ...(onRevoked === undefined ? {} : { onRevoked: onRevoked(record.tokenId) }),
      };
      if (credentials.speaker === undefined)
        return { ...base, actor: { id: record.actorId, verified: true, issuer: TOKEN_ISSUER } };
      return { ...base, actor: { id: parseSpeaker(credentials.speaker), verified: false, issuer: record.actorId } };
    },
  };
}
