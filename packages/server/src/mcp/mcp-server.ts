/**
 * The MCP server of one session: Sema's tools and task resources for one caller, on the SDK's
 * `McpServer`. A transport (stdio, or one Streamable HTTP session) connects to it.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Caller } from "../ingress/caller.ts";
import { watchToken } from "../ingress/token-watch.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";
import { registerResources } from "./resources.ts";
import { SessionEnd } from "./session-end.ts";
import { registerTools } from "./tools.ts";

/** The name and version the server reports to clients. */
export const MCP_SERVER_INFO = { name: "sema", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Sema runs agents as durable tasks. run_<agent> starts one and waits for its answer; get_task, send_to_task, decide_approval and cancel_task act on a task by id; sema://tasks/{id} is its transcript and sema://tasks/{id}/events its log.";

/**
 * A new MCP server speaking as `caller` over `deps`. When the caller's token is revoked (at once
 * in this process, else within `sseRecheckMs`) its waits answer `Unauthorized` and it closes.
 */
export function createMcpServer(deps: TaskDeps, caller: Caller): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
  });
  const end = new SessionEnd();
  const session = {
    deps,
    caller,
    canElicit: () => server.server.getClientCapabilities()?.elicitation !== undefined,
    end,
  };
  const unwatch = watchToken(caller, deps.limits.sseRecheckMs, () => end.end(() => void server.close()));
  server.server.onclose = unwatch;
  registerTools(server, session);
  registerResources(server, session);
  return server;
}
