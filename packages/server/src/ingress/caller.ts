/**
 * Who is calling: the principal whose tasks a request may reach, the actor the request speaks as,
 * and the token's roles. Minted by an `Ingress` from credentials only; nothing in a request body
 * can change any of it.
 */
import { type ActorAssertion, parseTraceContext, type TraceContext } from "@sema-agent/core";
import type { Role } from "./token-store.ts";

/**
 * An authenticated caller: the principal whose tasks it may reach, the actor it speaks as, its roles
 * and token, and a check that the token is still valid. Minted by an {@link Ingress} from credentials only.
 */
export interface Caller {
  /** Whose tasks the request may reach. */
  principal: string;
  /** Who the request speaks as: the token's actor (verified), or a relayed speaker (unverified). */
  actor: ActorAssertion;
  /** What the token may do beyond speaking for its actor (`approver`, `supervisor`). */
  roles: ReadonlySet<Role>;
  /** The token that authenticated the request. */
  tokenId: string;
  /**
   * Whether that credential is still good (not revoked), for responses that outlive the request's
   * authentication: an open event stream asks it periodically and ends when it says no.
   */
  stillValid?: () => Promise<boolean>;
  /**
   * Subscribe to the token's revocation in this process (`TokenStore.revoke` on the store the
   * ingress reads): `listener` is called before `revoke` returns, so an open stream ends at once
   * rather than at its next `stillValid` check. Returns the unsubscribe. Absent: only the checks.
   */
  onRevoked?: (listener: () => void) => () => void;
  /**
   * The request's W3C trace context (`traceparent`, `tracestate`), when it carried a valid one:
   * recorded on the event the request causes. A malformed header is ignored, never refused.
   */
  traceContext?: TraceContext;
}

/** `caller` with the trace context of `headers` (a malformed or absent `traceparent`: none). */
export function withTraceContext(caller: Caller, headers: Headers): Caller {
  const traceContext = parseTraceContext({
    traceparent: headers.get("traceparent"),
    tracestate: headers.get("tracestate"),
  });
  if (traceContext === undefined) {
    if (caller.traceContext === undefined) return caller;
    const { traceContext: _dropped, ...rest } = caller;
    return rest;
  }
  return { ...caller, traceContext };
}

/** The credentials part of a request, as the ingress needs it. */
export interface Credentials {
  /** The `Authorization` header. */
  authorization: string | undefined;
  /** The `X-Sema-Speaker` header: a display name relayed by a shared front end. */
  speaker: string | undefined;
}

/** Authenticates requests. Throws an `HttpError` (401 for credentials, 400 for a malformed speaker). */
export interface Ingress {
  /** The caller of a request with these credentials; throws an `HttpError` (401, or 400 for a malformed speaker). */
  authenticate(credentials: Credentials): Promise<Caller>;
}
