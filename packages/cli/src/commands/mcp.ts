/**
 * `sema mcp [--dir path] [--token T] [--workers N] [--db path | --store url] [--model …] [--workspaces dir]
 * [--workspace-per principal|task]`: an MCP server on stdio, for Claude Desktop, Claude Code and
 * IDEs, over the same store and agents as `sema serve`, with workers in the process (`--workers 0`:
 * workers elsewhere run the tasks). The session speaks as one caller: the token given by `--token`
 * or `SEMA_TOKEN` (a `sema token create` token: its principal, actor and roles), else the local
 * principal with every role, as `sema run` and `sema approve` act. Stdout carries only the
 * protocol; messages go to stderr.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { TokenStore } from "@sema-agent/server";
import { type Caller, createTokenIngress, HttpError, LOCAL_PRINCIPAL, ROLES } from "@sema-agent/server";
import { serveMcpStdio } from "@sema-agent/server/mcp";
import { localActor } from "../approvals.ts";
import { type CliIo, UsageError } from "../context.ts";
import { reportTo, untilInterrupted } from "../host-options.ts";
import { openServedHost, SERVED_OPTIONS } from "../served-host.ts";

/** The session's caller: the token's, or the local principal's. */
async function callerOf(token: string | undefined, tokens: () => Promise<TokenStore>): Promise<Caller> {
  if (token === undefined || token === "")
    return { principal: LOCAL_PRINCIPAL, actor: localActor(), roles: new Set(ROLES), tokenId: "local" };
  try {
    return await createTokenIngress(await tokens()).authenticate({
      authorization: `Bearer ${token}`,
      speaker: undefined,
    });
  } catch (error) {
    if (error instanceof HttpError) throw new UsageError(`--token / SEMA_TOKEN: ${error.message}`);
    throw error;
  }
}

export async function mcp(argv: string[], given: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { token: { type: "string" }, dir: { type: "string" }, ...SERVED_OPTIONS },
  });
  // --dir: the project directory (config, store, workspaces), for clients that start servers
  // elsewhere (Claude Desktop has no working-directory setting).
  const io = values.dir === undefined ? given : { ...given, cwd: resolve(given.cwd, values.dir) };
  const { backend, set, agents, tools, concurrency, workers } = await openServedHost(io, values);
  try {
    const caller = await callerOf(values.token ?? io.env.SEMA_TOKEN, backend.tokens);
    const served = await serveMcpStdio({
      store: backend.store,
      agents,
      caller,
      approvers: { agents: set.approvers },
      workers,
      onError: reportTo(io, "sema mcp"),
    });
    io.stderr.write(
      `Sema MCP server on stdio as principal ${caller.principal} (store ${backend.label}, agents from ${set.source}, tools in ${tools.label}, ${concurrency === 0 ? "no workers" : `${concurrency} workers`})\n`,
    );
    // The client closing stdin, Ctrl-C or SIGTERM: running legs park and resume on the next start.
    await Promise.race([served.closed, untilInterrupted(io)]);
    await served.close({ deadlineMs: 10_000 });
    return 0;
  } finally {
    await backend.close();
  }
}
