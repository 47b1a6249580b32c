/**
 * Which webhook URLs the server will call: http(s) only, and by default only globally reachable
 * addresses (a webhook is a request the server makes on a client's behalf; it must not reach what
 * only the server can reach). The name is resolved once per check, every answer is judged by its
 * bytes (`isPublicAddress`), and the result names the address to connect to, so the request goes
 * to the address that was checked and a name cannot answer differently between check and connect.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { isPublicAddress } from "./push-address.ts";

/** One answer of a name lookup. */
export interface ResolvedAddress {
  /** An IP literal. */
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (default: `node:dns` `lookup` with `all: true`). */
export type PushResolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** Where webhooks may go: operator configuration, never anything a request says. */
export interface PushUrlPolicy {
  /** Allow loopback, private and other non-public addresses (tests, a webhook on the same host). Default false. */
  allowPrivateNetworks?: boolean;
  /** When given, only these host names (exact, lowercase) may be called. */
  allowedHosts?: readonly string[];
  /** How host names are resolved (tests inject one). Default `node:dns` `lookup`, every address. */
  resolve?: PushResolver;
}

/** A checked webhook: its URL and the address the request must connect to. */
export interface PushTarget {
  /** The URL as parsed (its host name goes in `Host` and TLS SNI). */
  url: URL;
  /** The checked address (the URL's own literal, or the first answer for its name). */
  address: string;
  family: 4 | 6;
}

const systemResolve: PushResolver = async (host) =>
  (await lookup(host, { all: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

/** Why a webhook URL is refused; only `unresolved` may change by itself (DNS trouble). */
export type PushUrlRefusal = "invalid" | "scheme" | "credentials" | "host-not-allowed" | "unresolved" | "non-public";

/** A checked target, or why there is none. */
export type PushUrlCheck = { ok: true; target: PushTarget } | { ok: false; reason: PushUrlRefusal; message: string };

function refused(reason: PushUrlRefusal, message: string): PushUrlCheck {
  return { ok: false, reason, message };
}

/** Judge `raw` against the policy: the target to connect to, or the reason it is refused. */
export async function judgePushUrl(raw: string, policy: PushUrlPolicy): Promise<PushUrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused("invalid", "the push notification URL is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return refused("scheme", "the push notification URL must be http or https");
  if (url.username !== "" || url.password !== "")
    return refused("credentials", "the push notification URL must not carry credentials");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (policy.allowedHosts !== undefined && !policy.allowedHosts.includes(host))
    return refused("host-not-allowed", `the push notification host ${host} is not on the server's allow-list`);
  const literal = isIP(host);
  let addresses: readonly ResolvedAddress[];
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host);
    } catch {
      return refused("unresolved", `the push notification host ${host} does not resolve`);
    }
  }
  const first = addresses[0];
  if (first === undefined || addresses.some((entry) => isIP(entry.address) === 0))
    return refused("unresolved", `the push notification host ${host} does not resolve`);
  // Any non-public answer refuses the name: which answer a connection would use is not ours to pick.
  if (policy.allowPrivateNetworks !== true && addresses.some((entry) => !isPublicAddress(entry.address)))
    return refused(
      "non-public",
      `the push notification host ${host} is a loopback, private or otherwise non-public address, which this server does not call`,
    );
  return { ok: true, target: { url, address: first.address, family: isIP(first.address) === 6 ? 6 : 4 } };
}

/** The target if the policy lets the server call the URL; a `RequestMalformedError` naming why not. */
export async function checkPushUrl(raw: string, policy: PushUrlPolicy): Promise<PushTarget> {
  const check = await judgePushUrl(raw, policy);
  if (!check.ok) throw new RequestMalformedError(check.message);
  return check.target;
}
