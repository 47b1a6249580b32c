/** `mcp()`: MCP's Streamable HTTP at `/mcp` as an opt-in protocol, with the `/v1` tokens and limits. */
import type { ServerProtocol } from "../server-protocol.ts";
import { mountMcp } from "./http-mount.ts";

/**
 * The MCP protocol for `createApp({ protocols })` or `serve({ protocols })`: Streamable HTTP at
 * `/mcp` (`MCP_PATH`), each request authenticated and rate limited as a `/v1` request, each
 * session bound to the token that opened it.
 */
export function mcp(): ServerProtocol {
  return {
    name: "mcp",
    mount(app, context) {
      mountMcp(app, {
        deps: context.deps,
        ingress: context.ingress,
        rateLimiter: context.rateLimiter,
        now: context.deps.now,
      });
    },
  };
}
