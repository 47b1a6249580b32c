/**
 * The bearer-token ingress: `Authorization: Bearer sema_…` → the token's principal, its actor as a
 * verified assertion (`issuer: "sema-token"`) and its roles; with `X-Sema-Speaker`, the relayed
 * name as an unverified actor issued by the token's actor.
 */
import { HttpError } from "../http-error.ts";
import type { Caller, Credentials, Ingress } from "./caller.ts";
import { parseSpeaker } from "./speaker.ts";
import type { TokenStore } from "./token-store.ts";

export const TOKEN_ISSUER = "sema-token";

function unauthorized(message: string): HttpError {
  return new HttpError(401, "Unauthorized", message, { headers: { "WWW-Authenticate": 'Bearer realm="sema"' } });
}

export function createTokenIngress(tokens: TokenStore): Ingress {
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
      const base = { principal: record.principal, roles, tokenId: record.tokenId };
      if (credentials.speaker === undefined)
        return { ...base, actor: { id: record.actorId, verified: true, issuer: TOKEN_ISSUER } };
      return { ...base, actor: { id: parseSpeaker(credentials.speaker), verified: false, issuer: record.actorId } };
    },
  };
}
