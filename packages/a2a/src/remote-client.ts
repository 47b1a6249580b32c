/**
 * The official A2A client for one remote agent: its card read once (lazily, at the first call, so
 * defining a tool never touches the network), the JSON-RPC and REST transports, and the bearer
 * token added to every request the SDK makes.
 */
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { A2AToolError } from "./a2a-tool-error.ts";
import type { A2AToken, A2ATransport } from "./options.ts";

/** How to reach one remote agent. */
export interface RemoteAgent {
  url: string;
  token?: A2AToken;
  cardPath?: string;
  transports?: A2ATransport[];
  fetch?: typeof fetch;
}

/** `fetch` with `Authorization: Bearer <token>` on every request (a caller's own header wins). */
function bearerFetch(base: typeof fetch, token: A2AToken | undefined): typeof fetch {
  if (token === undefined) return base;
  return async (input, init) => {
    const value = typeof token === "string" ? token : await token();
    const headers = new Headers(init?.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${value}`);
    return base(input, { ...init, headers });
  };
}

/** A client made on first use; a failed attempt is forgotten so the next call tries again. */
export class RemoteClient {
  readonly #agent: RemoteAgent;
  #client: Promise<Client> | undefined;

  constructor(agent: RemoteAgent) {
    this.#agent = agent;
  }

  get(): Promise<Client> {
    this.#client ??= this.#connect().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  async #connect(): Promise<Client> {
    const { url, token, cardPath, transports } = this.#agent;
    const fetchImpl = bearerFetch(this.#agent.fetch ?? globalThis.fetch, token);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      ...(transports === undefined ? {} : { preferredTransports: transports }),
    });
    try {
      return await (cardPath === undefined ? factory.createFromUrl(url) : factory.createFromUrl(url, cardPath));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new A2AToolError("connect", `Could not connect to the A2A agent at ${url}: ${why}`, {
        agent: url,
        cause: error,
      });
    }
  }
}
