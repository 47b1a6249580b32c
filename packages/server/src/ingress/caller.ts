/**
 * Who is calling: the principal whose tasks a request may reach, the actor the request speaks as,
 * and the token's roles. Minted by an `Ingress` from credentials only; nothing in a request body
 * can change any of it.
 */
import type { ActorAssertion } from "@sema-agent/core";
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
