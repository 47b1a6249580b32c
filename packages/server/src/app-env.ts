/** The Hono environment of the API: what the middleware puts on each request's context. */
import type { Caller } from "./ingress/caller.ts";

/** The API's Hono environment: each request's authenticated {@link Caller}, set by the ingress middleware. */
export interface AppEnv {
  Variables: { caller: Caller };
}
