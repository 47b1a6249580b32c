/**
 * `@sema-agent/worker/registry`: the agents a server runs, by name, with one default — without
 * the worker pool, so a host that only serves the API (and `@sema-agent/server`'s root) loads
 * nothing of Node for it. A task records its agent's name when it is created, and every later
 * leg, in any worker, runs the agent registered under that name.
 *
 * @module @sema-agent/worker/registry
 */
import { type Agent, validateAgent } from "@sema-agent/core";

/**
 * The agents a server or worker pool runs, by name, with the one used when a task names none. Build
 * one with {@link createAgentRegistry}.
 */
export interface AgentRegistry {
  /** The name used when a task names no agent. */
  readonly defaultName: string;
  /** The agent registered under `name`, if any. */
  get(name: string): Agent | undefined;
  /** Every registered agent's name. */
  names(): string[];
}

/**
 * A registry over a fixed set of agents. `defaultName` defaults to the only agent's name when
 * there is one; with several it must be given. Each agent is checked here (`validateAgent`): one
 * without a model, or with an unknown key, is a `ConfigError` naming it before any worker runs.
 */
export function createAgentRegistry(agents: Record<string, Agent>, defaultName?: string): AgentRegistry {
  for (const [name, agent] of Object.entries(agents)) validateAgent(agent, "createAgentRegistry", `agents.${name}`);
  const map = new Map(Object.entries(agents));
  const fallback = defaultName ?? (map.size === 1 ? [...map.keys()][0] : undefined);
  if (fallback === undefined || !map.has(fallback))
    throw new TypeError(`createAgentRegistry: the default agent ${JSON.stringify(fallback)} is not registered`);
  return {
    defaultName: fallback,
    get: (name) => map.get(name),
    names: () => [...map.keys()],
  };
}
