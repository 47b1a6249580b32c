/**
 * What `sema serve` and `sema mcp` set up alike: the file tools in a workspace per principal (or
 * task), the agents from sema.config.* (or the default agent on --model), the store, and the
 * options of the in-process worker pool.
 */
import { type AgentRegistry, createAgentRegistry } from "@sema-agent/server";
import { type AgentSet, loadAgents } from "./agent-config.ts";
import { requireModel } from "./commands/run.ts";
import { type Backend, type CliIo, openBackend, STORE_OPTIONS, type StoreFlags, storeLocation } from "./context.ts";
import { leaseTtl, maxPerPrincipal, nonNegativeInteger } from "./host-options.ts";
import { servedToolSetup, type ToolSetup, WORKSPACE_OPTIONS } from "./tool-roots.ts";

/** The flags of the hosts that serve agents to callers with a worker pool beside them. */
export const SERVED_OPTIONS = {
  ...STORE_OPTIONS,
  ...WORKSPACE_OPTIONS,
  model: { type: "string" },
  workers: { type: "string" },
  "max-per-principal": { type: "string" },
  "lease-ttl": { type: "string" },
} as const;

export interface ServedFlags extends StoreFlags {
  workspaces?: string | undefined;
  "workspace-per"?: string | undefined;
  model?: string | undefined;
  workers?: string | undefined;
  "max-per-principal"?: string | undefined;
  "lease-ttl"?: string | undefined;
}

export interface ServedHost {
  backend: Backend;
  set: AgentSet;
  agents: AgentRegistry;
  tools: ToolSetup;
  /** `--workers`, default 4; 0 means no pool in this process. */
  concurrency: number;
  /** The pool's options, or `false` for `--workers 0`. */
  workers: { concurrency: number; leaseTtlMs: number; maxPerPrincipal?: number } | false;
}

/** Set the host up from its flags; the caller closes `backend`. */
export async function openServedHost(io: CliIo, values: ServedFlags): Promise<ServedHost> {
  const concurrency = nonNegativeInteger("--workers", values.workers, 4);
  const perPrincipal = maxPerPrincipal(values["max-per-principal"]);
  const leaseTtlMs = leaseTtl(values["lease-ttl"]);
  // Each principal's tools get a workspace of their own, away from the store and the config.
  const tools = servedToolSetup(io, storeLocation(io, values), values);
  const set = await loadAgents(io.cwd, io.env, () => requireModel(io, values.model), tools);
  const backend = await openBackend(io, values);
  return {
    backend,
    set,
    agents: createAgentRegistry(set.agents, set.defaultAgent),
    tools,
    concurrency,
    // --workers 0: an API-only node; workers elsewhere share the store.
    workers: concurrency === 0 ? false : { concurrency, leaseTtlMs, ...perPrincipal },
  };
}
