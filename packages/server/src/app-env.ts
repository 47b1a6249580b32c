/** The Hono environment of the API: what the middleware puts on each request's context. */
import type { Caller } from "./ingress/caller.ts";

export interface AppEnv {
  Variables: { caller: Caller };
}
