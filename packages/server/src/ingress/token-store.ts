/**
 * Bearer tokens: a random secret handed out once, and a record kept under the secret's SHA-256 so
 * that a stolen database yields no usable token. Each token names a principal (whose tasks it
 * reaches), an actor (who speaks when it is used) and its roles.
 */
import { LABEL_ID_MAX_CHARS } from "@sema-agent/core";
import { checkConfig } from "@sema-agent/core/protocol";
import { type Quotas, quotasSchema } from "@sema-agent/core/quotas";
import { z } from "zod";
import type { RevocationListener } from "./revocation-listeners.ts";

/**
 * What a token may do beyond speaking for its actor on its principal's tasks: decide approvals
 * (`approver`), speak on the supervisor lane and import export files, which write what anyone
 * said on any lane (`supervisor`), read the process's metrics (`metrics`, `GET /metrics`, which
 * counts every principal's tasks).
 */
export type Role = "approver" | "supervisor" | "metrics";

/** Every role, for a token that may do everything (the first token has them all). */
export const ROLES: readonly Role[] = ["approver", "metrics", "supervisor"];

/** A stored token, without its secret. */
export interface TokenRecord {
  /** Public handle, shown in listings and used to revoke; also the secret's prefix. */
  tokenId: string;
  principal: string;
  /** The verified actor id requests made with this token carry. */
  actorId: string;
  roles: Role[];
  createdAt: string;
  /** Set once revoked; a revoked token never authenticates again. */
  revokedAt?: string;
  /**
   * Quotas of its principal this token narrows (the tightest of the config's and every live
   * token's applies: see `quotaResolver`). Absent: the token sets none.
   */
  quotas?: Quotas;
}

/** A new token's principal, actor id (default: the principal) and roles (default none). */
export interface CreateTokenInput {
  principal: string;
  /** Default: the principal's name. */
  actorId?: string;
  /** What the token may do beyond speaking for its actor. Default none. */
  roles?: readonly Role[];
  /** Quotas of its principal to narrow (see `TokenRecord.quotas`). Default none. */
  quotas?: Quotas;
}

/** A freshly minted token: the secret is returned here and never stored. */
export interface CreatedToken {
  /** The secret (`sema_<tokenId>_…`): shown once, never stored (only its hash is). */
  token: string;
  record: TokenRecord;
}

/** Where token records live. Implementations never see or keep a plaintext secret except in `create`'s return. */
export interface TokenStore {
  /**
   * Mint a token and store its record under the secret's hash. The secret is in the result only, once.
   * Bad input (an unknown key, an invalid principal or actor id, an unknown role) throws before anything is stored.
   */
  create(input: CreateTokenInput): Promise<CreatedToken>;
  /** The live record of a presented secret, or undefined (unknown, malformed or revoked). */
  verify(token: string): Promise<TokenRecord | undefined>;
  /** Revoke by token id (or by the secret itself). False when there was no such live token. */
  revoke(tokenIdOrToken: string): Promise<boolean>;
  /** Every token, revoked ones included, oldest first. */
  list(): Promise<TokenRecord[]>;
  /**
   * Optional: tell `listener` the id of each token this store object revokes, before `revoke`
   * returns; the function returned unsubscribes. A server subscribes to end the token's open
   * streams at once. A store without it (or a revocation made by another process) is still seen:
   * open streams re-check their token every `sseRecheckMs`.
   */
  onRevoke?(listener: RevocationListener): () => void;
  /**
   * Optional: create the token only if the store holds none, atomically — for stores shared by
   * several servers that may start at the same moment. Undefined when there already was one.
   */
  createFirst?(input: CreateTokenInput): Promise<CreatedToken | undefined>;
  /** Release the store's resources (a connection it opened; a pool it was given stays open). */
  close(): Promise<void>;
}

/** Tokens look like `sema_<tokenId>_<secret>`; the prefix lets logs and scanners recognise a leak. */
export const TOKEN_PREFIX = "sema_";
const TOKEN_PATTERN = /^sema_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
const PRINCIPAL_PATTERN = /^[\p{L}\p{N}._@+:-]{1,128}$/u;
// An actor id is shown whole in `[from "…"]`, which keeps LABEL_ID_MAX_CHARS (64) code points: a
// longer id would be cut, and two verified actors could then share a label.
const ACTOR_PATTERN = new RegExp(`^[\\p{L}\\p{N}._@+:-]{1,${LABEL_ID_MAX_CHARS}}$`, "u");

/** SHA-256 of the whole token (UTF-8), hex; Web Crypto, so it runs wherever the app does. */
export async function hashToken(token: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function randomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** Bytes as base64url without padding (32 bytes → 43 characters). */
function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** A new token: 32 random bytes (base64url) behind a 6-byte random id. */
export function mintToken(): { tokenId: string; token: string } {
  const tokenId = Array.from(randomBytes(6), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return { tokenId, token: `${TOKEN_PREFIX}${tokenId}_${base64url(randomBytes(32))}` };
}

/** The token id inside a well-formed token, or undefined. */
export function tokenIdOf(token: string): string | undefined {
  return TOKEN_PATTERN.exec(token)?.[1];
}

// One line per `CreateTokenInput` field; the compile fails while the two disagree on keys.
const createShape = {
  principal: z.string(),
  actorId: z.string().optional(),
  // Each role is checked below, with the message it always had.
  roles: z.array(z.string()).readonly().optional(),
  quotas: quotasSchema.optional(),
} satisfies { [K in keyof CreateTokenInput]-?: z.ZodType };
const createKeysMatch: [keyof typeof createShape] extends [keyof CreateTokenInput]
  ? [keyof CreateTokenInput] extends [keyof typeof createShape]
    ? true
    : false
  : false = true;
void createKeysMatch;

const createSchema = z.strictObject(createShape);

/**
 * Check and complete a creation request. An unknown key (`actor` for `actorId`) or a wrong type
 * is a `ConfigError` naming it, in every token store, before anything is stored. Principal and actor ids are labels people read in logs
 * and the model reads in `[from "…"]`: letters, digits and `._@+:-` only, so neither can carry a
 * line break or markup; a principal has at most 128 code points, an actor id at most 64, the
 * most a speaker label shows, so every verified actor's label is its whole id and no two share one.
 */
export function normalizeCreateInput(input: CreateTokenInput): {
  principal: string;
  actorId: string;
  roles: Role[];
  quotas: Quotas | undefined;
} {
  checkConfig(createSchema, input, "tokens.create");
  const principal = input.principal.normalize("NFC");
  const actorId = (input.actorId ?? input.principal).normalize("NFC");
  if (!PRINCIPAL_PATTERN.test(principal))
    throw new TypeError(
      `invalid principal name ${JSON.stringify(principal)}: 1 to 128 letters, digits or ._@+:- characters`,
    );
  if (!ACTOR_PATTERN.test(actorId))
    throw new TypeError(
      `invalid actor id ${JSON.stringify(actorId)}: 1 to ${LABEL_ID_MAX_CHARS} letters, digits or ._@+:- characters, all of which its speaker label shows`,
    );
  const roles = [...new Set(input.roles ?? [])].sort();
  for (const role of roles) if (!ROLES.includes(role)) throw new TypeError(`unknown role: ${String(role)}`);
  const quotas = input.quotas === undefined || Object.keys(input.quotas).length === 0 ? undefined : { ...input.quotas };
  return { principal, actorId, roles, quotas };
}
