/**
 * `a2a()`: the A2A server as an opt-in protocol — agent cards, the JSON-RPC and REST bindings,
 * and push notifications when given where to keep their configs.
 */
import { ConfigError, checkConfig, type SchemaMatches, type ShapeOf } from "@sema-agent/core/protocol";
import { z } from "zod";
import type { TokenStore } from "../ingress/token-store.ts";
import { objectWith } from "../server-options.ts";
import type { ServerProtocol } from "../server-protocol.ts";
import { a2aRoutes } from "./a2a-routes.ts";
import { publicUrlSchema } from "./card-origin.ts";
import type { PushConfigStore } from "./push-config-store.ts";
import { PushDispatcher } from "./push-dispatcher.ts";
import { tokenLiveness } from "./push-token-check.ts";
import type { PushResolver, PushUrlPolicy } from "./push-url.ts";

/**
 * Push notifications the protocol runs itself: it builds the dispatcher over the app's store
 * when mounted, and `serve` starts and closes it with the server.
 */
export interface A2APushSettings {
  /** Where the webhook configs and their delivery cursors are kept. */
  configs: PushConfigStore;
  /** Which webhook URLs may be called (default: public addresses only). */
  urls?: PushUrlPolicy;
  /** Backoff between attempts: `baseMs · 2^n`, at most `maxMs`. Default 500 ms and 60 s. */
  retry?: { baseMs?: number; maxMs?: number };
  /** The token store, so a webhook stops with the token that registered it (see `tokenLiveness`). */
  tokens?: Pick<TokenStore, "list">;
}

/** What `a2a()` takes. */
export interface A2AOptions {
  /**
   * Push notifications: settings (the protocol runs the dispatcher), or a `PushDispatcher` the
   * host built, starts and closes itself. Without it the card says `pushNotifications: false`.
   */
  push?: A2APushSettings | PushDispatcher;
  /**
   * The base URL clients reach this server at (`https://agents.example.com`), which the agent
   * cards advertise. Default: the address of the socket the card was fetched on. Never the
   * request's `Host` header. Set it behind a reverse proxy.
   */
  publicUrl?: string;
}

const pushSettingsShape = {
  configs: objectWith<PushConfigStore>(["put", "get", "list", "delete", "all", "advance"], "a PushConfigStore"),
  urls: z
    .strictObject({
      allowPrivateNetworks: z.boolean().optional(),
      allowedHosts: z.array(z.string().min(1)).optional(),
      resolve: z.custom<PushResolver>((value) => typeof value === "function", "a resolver function").optional(),
    })
    .optional(),
  retry: z
    .strictObject({ baseMs: z.number().positive().optional(), maxMs: z.number().positive().optional() })
    .optional(),
  tokens: objectWith<Pick<TokenStore, "list">>(["list"], "a TokenStore").optional(),
} satisfies ShapeOf<A2APushSettings>;

const dispatcherSchema = objectWith<PushDispatcher>(["start", "watch", "close"], "a PushDispatcher");

const a2aShape = {
  push: z.union([dispatcherSchema, z.strictObject(pushSettingsShape)]).optional(),
  publicUrl: publicUrlSchema.optional(),
} satisfies ShapeOf<A2AOptions>;
const a2aSchema = z.strictObject(a2aShape);
const a2aMatches: SchemaMatches<typeof a2aSchema, A2AOptions> = true;
void a2aMatches;

function isDispatcher(push: A2APushSettings | PushDispatcher): push is PushDispatcher {
  return push instanceof PushDispatcher || typeof (push as Partial<PushDispatcher>).watch === "function";
}

/**
 * The A2A protocol for `createApp({ protocols })` or `serve({ protocols })`: agent cards at
 * `/.well-known/agent-card.json` and `/a2a/agents/{name}/…`, JSON-RPC at `POST /a2a`, REST under
 * `/a2a/v1/…`, behind the `/v1` tokens and rate limit. Options are checked here (`ConfigError`).
 * With push settings, the value mounts on one app only (it owns that app's dispatcher).
 */
export function a2a(options: A2AOptions = {}): ServerProtocol {
  checkConfig(a2aSchema, options, "a2a");
  const given = options.push;
  let owned: PushDispatcher | undefined;
  return {
    name: "a2a",
    mount(app, context) {
      let push: PushDispatcher | undefined;
      if (given === undefined) push = undefined;
      else if (isDispatcher(given)) push = given;
      else {
        if (owned !== undefined)
          throw new ConfigError("a2a", [
            {
              path: "push",
              message: "this a2a() runs its own push dispatcher and is mounted already: make one per app",
            },
          ]);
        owned = new PushDispatcher({
          store: context.deps.store,
          configs: given.configs,
          ...(given.urls === undefined ? {} : { urls: given.urls }),
          ...(given.retry === undefined ? {} : { retry: given.retry }),
          // A webhook stops with the token that registered it.
          ...(given.tokens === undefined ? {} : { tokenValid: tokenLiveness(given.tokens) }),
        });
        push = owned;
      }
      app.route("/", a2aRoutes(context, { push, publicUrl: options.publicUrl }));
    },
    async start() {
      // Owed notifications (from before a restart) go out now.
      await owned?.start();
    },
    async close() {
      await owned?.close();
    },
  };
}
