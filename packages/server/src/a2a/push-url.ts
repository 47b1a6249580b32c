/**
 * Which webhook URLs the server will call: http(s) only, and by default no loopback, private,
 * link-local or otherwise internal address (a webhook is a request the server makes on a
 * client's behalf; it must not reach what only the server can reach). The name is resolved and
 * every address checked, at registration and again before each delivery (a name may change).
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { RequestMalformedError } from "@a2a-js/sdk/errors";

/** Where webhooks may go. */
export interface PushUrlPolicy {
  /** Allow loopback and private ranges (tests, a webhook on the same host). Default false. */
  allowPrivateNetworks?: boolean;
  /** When given, only these host names (exact, lowercase) may be called. */
  allowedHosts?: readonly string[];
}

function v4Internal(address: string): boolean {
  const [a = 0, b = 0] = address.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** Whether an IP address is loopback, private, link-local, unspecified or multicast. */
export function isInternalAddress(address: string): boolean {
  if (isIP(address) === 4) return v4Internal(address);
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1] !== undefined) return v4Internal(mapped[1]);
  return (
    lower === "::" ||
    lower === "::1" ||
    lower.startsWith("fc") ||
    lower.startsWith("fd") ||
    lower.startsWith("fe8") ||
    lower.startsWith("fe9") ||
    lower.startsWith("fea") ||
    lower.startsWith("feb") ||
    lower.startsWith("ff")
  );
}

/** The URL if the policy lets the server call it; a `RequestMalformedError` naming why not. */
export async function checkPushUrl(raw: string, policy: PushUrlPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RequestMalformedError("the push notification URL is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new RequestMalformedError("the push notification URL must be http or https");
  if (url.username !== "" || url.password !== "")
    throw new RequestMalformedError("the push notification URL must not carry credentials");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (policy.allowedHosts !== undefined && !policy.allowedHosts.includes(host))
    throw new RequestMalformedError(`the push notification host ${host} is not on the server's allow-list`);
  if (policy.allowPrivateNetworks === true) return url;
  let addresses: string[];
  try {
    addresses = isIP(host) === 0 ? (await lookup(host, { all: true })).map((entry) => entry.address) : [host];
  } catch {
    throw new RequestMalformedError(`the push notification host ${host} does not resolve`);
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress))
    throw new RequestMalformedError(
      `the push notification host ${host} is a loopback or private address, which this server does not call`,
    );
  return url;
}
