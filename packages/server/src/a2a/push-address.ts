/**
 * Whether an IP address is one a webhook may reach: decided on the address's bytes, never on its
 * spelling (`::ffff:7f00:1`, `::ffff:127.0.0.1` and `127.0.0.1` are one address). Every special
 * purpose range of IANA's registries that is not globally reachable is refused, and an IPv6 form
 * that carries an IPv4 address (mapped, NAT64, 6to4) is judged by the IPv4 address it carries.
 */
import { isIP } from "node:net";

/** `[first address, prefix length]` of the IPv4 ranges no webhook may reach. */
const V4_BLOCKED: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255 (broadcast)
];

/** The IPv4 ranges refused, as CIDR text (for tests and docs). */
export const BLOCKED_IPV4_RANGES: readonly string[] = V4_BLOCKED.map(([base, bits]) => `${base}/${bits}`);

function v4Bytes(text: string): number[] {
  return text.split(".").map(Number);
}

/** The 16 bytes of a valid IPv6 address (an embedded dotted quad allowed; a zone id dropped). */
function v6Bytes(text: string): number[] {
  let rest = text.toLowerCase().replace(/%.*$/, "");
  const tail: number[] = [];
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (quad?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = v4Bytes(quad[1]);
    rest = `${rest.slice(0, -quad[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", after] = rest.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const front = groups(head);
  const back = after === undefined ? [] : groups(after);
  const words = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  for (const word of words) tail.push(word >> 8, word & 0xff);
  return tail;
}

/** Whether the first `bits` bits of `bytes` equal those of `prefix`. */
function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const bit = 7 - (i % 8);
    if ((((bytes[i >> 3] ?? 0) >> bit) & 1) !== (((prefix[i >> 3] ?? 0) >> bit) & 1)) return false;
  }
  return true;
}

const V4_BLOCKED_BYTES = V4_BLOCKED.map(([base, bits]) => [v4Bytes(base), bits] as const);

function v4Public(bytes: readonly number[]): boolean {
  return !V4_BLOCKED_BYTES.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
}

const V6 = (text: string) => v6Bytes(text);
const MAPPED = V6("::ffff:0:0");
const NAT64 = V6("64:ff9b::");
const SIX_TO_FOUR = V6("2002::");
/** Inside global unicast (2000::/3), the ranges that are not globally reachable. */
const V6_BLOCKED_IN_GLOBAL = [
  [V6("2001::"), 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID …
  [V6("2001:db8::"), 32], // documentation
  [V6("3fff::"), 20], // documentation (RFC 9637)
] as const;

function v6Public(bytes: readonly number[]): boolean {
  // Forms that carry an IPv4 address are as public as that address.
  if (inPrefix(bytes, MAPPED, 96) || inPrefix(bytes, NAT64, 96)) return v4Public(bytes.slice(12));
  if (inPrefix(bytes, SIX_TO_FOUR, 16)) return v4Public(bytes.slice(2, 6));
  // Outside 2000::/3 nothing is global unicast: ::, ::1, ::/96, 64:ff9b:1::/48 (local NAT64),
  // 100::/64 (discard), fc00::/7 (unique local), fe80::/10 (link-local), ff00::/8 (multicast) ….
  if ((bytes[0] ?? 0) >> 5 !== 0b001) return false;
  return !V6_BLOCKED_IN_GLOBAL.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
}

/**
 * Whether `address` (an IPv4 or IPv6 literal, without brackets) is a globally reachable unicast
 * address. Anything that is not a valid IP literal is not.
 */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address.replace(/%.*$/, ""));
  if (version === 4) return v4Public(v4Bytes(address));
  if (version === 6) return v6Public(v6Bytes(address));
  return false;
}
