/**
 * Who spoke: the identity an ingress attaches to a piece of human text it accepted.
 *
 * **Normative: attribution, never authority.** The label rendered from an assertion tells the
 * model (and a reader of the log) who said something. No code path grants a permission, skips an
 * approval or widens a lane because of what an assertion or its label says; authority comes only
 * from the principal a leg runs for and the lane the ingress decided from credentials.
 */
export interface ActorAssertion {
  /** The speaker's id as the ingress knows it (a user id, an email, a display name). Untrusted text. */
  id: string;
  /**
   * `true` only when the ingress derived `id` from credentials it checked (a bearer token, a
   * session). A self-declared display name is `false`, and so is anything the host cannot vouch for.
   */
  verified: boolean;
  /** Who minted the assertion (`"sema-token"`, the relaying front end's own actor id, …). */
  issuer?: string;
}
