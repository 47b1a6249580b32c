/**
 * The A2A server, mounted on the API's port by the `a2a()` protocol: agent cards (public), then, behind
 * the same bearer-token ingress and rate limit as `/v1`, the JSON-RPC binding at `POST /a2a` and
 * the REST binding under `/a2a/v1/…` for the default agent, and both again at
 * `/a2a/agents/{name}` for each named agent of the registry.
 */
import { AgentCard } from "@a2a-js/sdk";
import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { errorResponse, HttpError, toHttpError } from "../http-error.ts";
import { withTraceContext } from "../ingress/caller.ts";
import { SPEAKER_HEADER } from "../ingress/speaker.ts";
import type { ProtocolContext } from "../server-protocol.ts";
import { agentCard } from "./agent-card.ts";
import { cardOrigin, normalizePublicUrl } from "./card-origin.ts";
import { JsonRpcBinding } from "./jsonrpc-binding.ts";
import type { PushDispatcher } from "./push-dispatcher.ts";
import { SemaA2AHandler } from "./request-handler.ts";
import { RestBinding } from "./rest-binding.ts";

/** The A2A routes' settings, resolved by the `a2a()` protocol. */
interface A2ARouteOptions {
  /** A started dispatcher; without it the card says `pushNotifications: false`. */
  push: PushDispatcher | undefined;
  /** The base URL the agent cards advertise (default: the socket's address, never `Host`). */
  publicUrl: string | undefined;
}

interface Served {
  name: string;
  base: string;
  jsonRpc: JsonRpcBinding;
  rest: RestBinding;
}

/**
 * The path after the binding's `/v1`, still percent-encoded as sent: `skip` segments of the raw
 * path (`/a2a/v1` is 3 with the empty first, `/a2a/agents/{name}/v1` is 5). Hono's `c.req.path`
 * is already partly decoded, and the binding decodes each id once itself (a second decoding would
 * turn `%2541` into `A`, and a malformed escape must be its 400).
 */
function restPath(url: string, skip: number): string {
  return `/${new URL(url).pathname.split("/").slice(skip).join("/")}`;
}

/** The A2A routes, as a Hono app to mount at `/`. */
export function a2aRoutes(mount: ProtocolContext, options: A2ARouteOptions): Hono<AppEnv> {
  const { deps } = mount;
  const app = new Hono<AppEnv>();
  const served = new Map<string, Served>();
  const publicUrl = options.publicUrl === undefined ? undefined : normalizePublicUrl(options.publicUrl);
  const endpoint = (name: string | undefined): Served => {
    const agentName = name ?? deps.agents.defaultName;
    if (deps.agents.get(agentName) === undefined)
      throw new HttpError(404, "NotFound", `no agent named ${agentName}`, { details: { agents: deps.agents.names() } });
    const key = name === undefined ? "" : agentName;
    let found = served.get(key);
    if (found === undefined) {
      const handler = new SemaA2AHandler(deps, agentName, options.push);
      found = {
        name: agentName,
        base: name === undefined ? "/a2a" : `/a2a/agents/${encodeURIComponent(agentName)}`,
        jsonRpc: new JsonRpcBinding(handler),
        rest: new RestBinding(handler),
      };
      served.set(key, found);
    }
    return found;
  };
  const card = (c: Context<AppEnv>, name: string | undefined) => {
    const at = endpoint(name);
    const agent = deps.agents.get(at.name);
    if (agent === undefined) throw new HttpError(404, "NotFound", `no agent named ${at.name}`);
    // Never from the request: the card is cached publicly (see card-origin.ts).
    const origin = cardOrigin(c, publicUrl);
    const body = agentCard(origin, at, agent, {
      version: mount.version,
      pushNotifications: options.push !== undefined,
    });
    return c.json(AgentCard.toJSON(body) as object, 200, { "cache-control": "public, max-age=60" });
  };
  const limits = {
    maxBodyBytes: deps.limits.maxContentBodyBytes,
    maxJsonDepth: deps.limits.maxJsonDepth,
    heartbeatMs: deps.limits.heartbeatMs,
  };

  app.get("/.well-known/agent-card.json", (c) => card(c, undefined));
  app.get("/a2a/agents/:name/.well-known/agent-card.json", (c) => card(c, c.req.param("name")));

  // Everything else under /a2a speaks for a principal: the `/v1` ingress, the `/v1` rate limit.
  app.use("/a2a/*", async (c, next) => {
    if (c.req.path.endsWith("/.well-known/agent-card.json")) return next();
    try {
      const caller = withTraceContext(
        await mount.ingress.authenticate({
          authorization: c.req.header("authorization"),
          speaker: c.req.header(SPEAKER_HEADER),
        }),
        c.req.raw.headers,
      );
      mount.rateLimiter.take(caller.principal);
      c.set("caller", caller);
    } catch (error) {
      return errorResponse(toHttpError(error));
    }
    return next();
  });

  app.post("/a2a", (c) => endpoint(undefined).jsonRpc.handle(c.req.raw, c.get("caller"), limits));
  app.post("/a2a/agents/:name", (c) =>
    endpoint(c.req.param("name")).jsonRpc.handle(c.req.raw, c.get("caller"), limits),
  );
  app.all("/a2a/v1/*", (c) =>
    endpoint(undefined).rest.handle(c.req.raw, restPath(c.req.url, 3), c.get("caller"), limits),
  );
  app.all("/a2a/agents/:name/v1/*", (c) =>
    endpoint(c.req.param("name")).rest.handle(c.req.raw, restPath(c.req.url, 5), c.get("caller"), limits),
  );
  return app;
}
