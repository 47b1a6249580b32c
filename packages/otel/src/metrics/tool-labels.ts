/**
 * A tool name as a metric attribute, from a bounded set (issue 29, finding 9): a model can call
 * any name it makes up, and each name was a new series of every tool metric (20 made-up names
 * were 340 series of `/metrics` from one turn). Names of the configured agents' tools are kept;
 * any other (a made-up name, a client's frontend tool) is recorded as `_OTHER`, the conventions'
 * fallback value. Without a configured list, the first {@link DEFAULT_MAX_TOOL_NAMES} names seen
 * are kept and the rest fold, so the labels stay bounded either way.
 */
import type { Agent } from "@sema-agent/core";

/** The value of `gen_ai.tool.name` for a name outside the known set. */
export const OTHER_TOOL = "_OTHER";

/** Names kept without a configured list, before the rest fold into {@link OTHER_TOOL}. */
export const DEFAULT_MAX_TOOL_NAMES = 64;

/** The delegation tool's name when an agent's `delegation` does not set one (core's `delegate`). */
const DELEGATE_TOOL = "delegate";

/**
 * Every tool name `agents` offer their models: each agent's tools, its delegation tool, and the
 * same of the agents it may delegate to.
 */
export function agentToolNames(agents: Iterable<Agent>): Set<string> {
  const names = new Set<string>();
  const seen = new Set<Agent>();
  const visit = (agent: Agent) => {
    if (seen.has(agent)) return;
    seen.add(agent);
    for (const tool of agent.tools ?? []) names.add(tool.name);
    if (agent.delegation === undefined) return;
    names.add(agent.delegation.toolName ?? DELEGATE_TOOL);
    for (const sub of Object.values(agent.delegation.agents ?? {})) visit(sub);
  };
  for (const agent of agents) visit(agent);
  return names;
}

/**
 * The label of a tool name: itself when `known` holds it, else {@link OTHER_TOOL}. Without
 * `known`, the first `max` distinct names seen are kept (the rest fold), for a sink given no list.
 */
export function toolLabeler(
  known: Iterable<string> | undefined,
  max = DEFAULT_MAX_TOOL_NAMES,
): (name: string) => string {
  if (known !== undefined) {
    const names = new Set(known);
    return (name) => (names.has(name) ? name : OTHER_TOOL);
  }
  const kept = new Set<string>();
  return (name) => {
    if (kept.has(name)) return name;
    if (kept.size >= max || name === OTHER_TOOL) return OTHER_TOOL;
    kept.add(name);
    return name;
  };
}
