/**
 * `serveMcpStdio`: an MCP server on stdio (what `sema mcp` runs for Claude Desktop, Claude Code
 * and IDE configs), with a worker pool in the same process over the same store as `serve`. The
 * whole session speaks as one caller, fixed at start (the token `sema mcp` was given, or the local
 * principal). Nothing but the protocol is written to the output stream.
 */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Store } from "@sema-agent/core";
import { checkConfig, functionSchema, type SchemaMatches, type ShapeOf } from "@sema-agent/core/protocol";
import { type AgentRegistry, type StopResult, startWorkers } from "@sema-agent/worker";
import { z } from "zod";
import { type ApproverSettings, approvalPolicy } from "../approval-policy.ts";
import type { Caller } from "../ingress/caller.ts";
import { type Limits, resolveLimits } from "../limits.ts";
import { TaskQueue } from "../routes/task-queue.ts";
import {
  approversSchema,
  checkAgents,
  limitsSchema,
  objectWith,
  registrySchema,
  storeSchema,
  type WorkersOptions,
  workersShape,
} from "../server-options.ts";
import { createMcpServer } from "./mcp-server.ts";

/** What `serveMcpStdio` serves, as whom, and with which workers. */
export interface McpStdioOptions {
  store: Store;
  agents: AgentRegistry;
  /** Who the session speaks as: its principal's tasks only, its actor on every input and decision. */
  caller: Caller;
  limits?: Partial<Limits>;
  /** Who may decide approvals (default: the `approver` role); see `AppOptions.approvers`. */
  approvers?: ApproverSettings;
  /** The in-process worker pool (as `serve`'s); `false`: tasks run on workers elsewhere. */
  workers?: WorkersOptions | false;
  /**
   * A worker's leg or poll failed (the task's log stays consistent). Default: `console.error`,
   * which goes to stderr: stdout carries only the protocol.
   */
  onError?: (error: unknown, taskId: string | undefined) => void;
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`. */
  output?: Writable;
}

const stdioShape = {
  store: storeSchema,
  agents: registrySchema,
  caller: objectWith<Caller>([], "a Caller { principal, actor, roles, tokenId }"),
  limits: limitsSchema.optional(),
  approvers: approversSchema.optional(),
  workers: z.union([z.literal(false), z.strictObject(workersShape)]).optional(),
  onError: functionSchema<(error: unknown, taskId: string | undefined) => void>("onError(error, taskId)").optional(),
  input: objectWith<Readable>(["on", "read"], "a readable stream").optional(),
  output: objectWith<Writable>(["write"], "a writable stream").optional(),
} satisfies ShapeOf<McpStdioOptions>;

const stdioSchema = z.strictObject(stdioShape);
const stdioMatches: SchemaMatches<typeof stdioSchema, McpStdioOptions> = true;
void stdioMatches;

/** A running stdio MCP server: wait for the client to go, or stop it. */
export interface McpStdio {
  /** Resolves when the client goes (its end of stdin closed) or `close` was called. */
  readonly closed: Promise<void>;
  /** Stop: the workers park their legs within `deadlineMs` (default 10 s), then the transport closes. */
  close(options?: { deadlineMs?: number }): Promise<StopResult>;
}

/** Serve MCP on stdio. The options (and every agent) are checked first: a `ConfigError` before anything runs. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdio> {
  checkConfig(stdioSchema, options, "serveMcpStdio");
  checkAgents(options.agents, "serveMcpStdio");
  const workers =
    options.workers === false
      ? undefined
      : startWorkers({
          store: options.store,
          agents: options.agents,
          ...options.workers,
          ...(options.onError === undefined ? {} : { onError: options.onError }),
        });
  const deps = {
    store: options.store,
    agents: options.agents,
    limits: resolveLimits(options.limits),
    workers,
    canApprove: approvalPolicy(options.approvers),
    inputs: new TaskQueue(),
  };
  const server = createMcpServer(deps, options.caller);
  const transport = new StdioServerTransport(options.input ?? process.stdin, options.output ?? process.stdout);
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  transport.onclose = () => ended();
  // The SDK's stdio transport does not notice the end of its input: a client that goes ends the session.
  const input = options.input ?? process.stdin;
  input.once("end", () => ended());
  await server.connect(transport);
  return {
    closed,
    async close(closeOptions = {}) {
      const result = (await workers?.stop(closeOptions)) ?? { stopped: [], abandoned: [] };
      await server.close();
      ended();
      return result;
    },
  };
}
