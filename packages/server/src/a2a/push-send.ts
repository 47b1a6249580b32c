/**
 * One webhook POST to the address that was checked (`PushTarget`), never to whatever the name
 * resolves to at connect time: node:http(s) with a `lookup` that answers the checked address, so
 * the `Host` header and TLS (SNI, certificate name) still use the URL's name.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { PushTarget } from "./push-url.ts";

/** Sends one notification and answers the webhook's status (the response body is discarded). */
export type PushSender = (
  target: PushTarget,
  init: { headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<number>;

/** The default {@link PushSender}: connects to `target.address` only; no redirects are followed. */
export const sendPinned: PushSender = (target, init) =>
  new Promise<number>((resolve, reject) => {
    const { url, address, family } = target;
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all === true) callback(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      url,
      {
        method: "POST",
        headers: { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) },
        lookup,
        // A connection of its own: no pooled socket outlives the check that allowed it.
        agent: false,
        signal: init.signal,
      },
      (response: IncomingMessage) => {
        response.resume();
        response.on("error", () => undefined);
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end(init.body);
  });
