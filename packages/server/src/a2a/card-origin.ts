/**
 * Where an agent card says its endpoints are. Never the request's `Host` (or any forwarded
 * header): a card is cached publicly, so one spoofed request would advertise an attacker's origin
 * to every client behind the cache. The operator's `publicUrl` when set; else the address of the
 * socket the request came in on, which is the server's own.
 */
import type { IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import { HttpError } from "../http-error.ts";

/**
 * A public base URL: absolute `http:` or `https:`, without credentials, query or fragment. A path
 * is kept (a reverse proxy may mount the server under one); a trailing `/` is not significant.
 */
export const publicUrlSchema = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.username === "" &&
    url.password === "" &&
    url.search === "" &&
    url.hash === "" &&
    !value.includes("?") &&
    !value.includes("#")
  );
}, "must be an absolute http(s) URL without credentials, query or fragment, e.g. https://agents.example.com");

/** `publicUrl` as cards use it: no trailing `/`. */
export function normalizePublicUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The origin of the socket `c` arrived on (Node's server), or `undefined` off Node's server. */
function socketOrigin(c: Context<AppEnv>): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const socket = incoming?.socket;
  const address = socket?.localAddress;
  const port = socket?.localPort;
  if (address === undefined || port === undefined) return undefined;
  const scheme = (socket as Partial<TLSSocket>).encrypted === true ? "https" : "http";
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d: write it as the IPv4 it is.
  const host = address.startsWith("::ffff:") && isIPv4(address.slice(7)) ? address.slice(7) : address;
  return `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** The base a card's URLs start with: `publicUrl` (normalized) or the server's own address. */
export function cardOrigin(c: Context<AppEnv>, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const own = socketOrigin(c);
  if (own === undefined)
    throw new HttpError(503, "Unavailable", "the agent card needs its public URL: set the A2A option publicUrl");
  return own;
}
