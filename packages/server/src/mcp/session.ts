/** One MCP session: who it speaks as and what its tools and resources call. */
import type { Caller } from "../ingress/caller.ts";
import type { TaskDeps } from "../tasks/task-deps.ts";
import type { SessionEnd } from "./session-end.ts";

export interface McpSession {
  deps: TaskDeps;
  /** Fixed for the session: the token that opened it (HTTP) or the one `sema mcp` was given. */
  caller: Caller;
  /** Whether the connected client declared the elicitation capability. */
  canElicit(): boolean;
  /** Ends the session's waits when its token is revoked (see `SessionEnd`). */
  end: SessionEnd;
}
