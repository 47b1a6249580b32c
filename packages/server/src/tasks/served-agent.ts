/**
 * The served agent a task runs as, found the way the worker pool finds it: the registered agent
 * its `task_created` names (the default agent when it names none); for a sub-agent's task, the
 * one its parent's agent delegates to by that name. A task whose agent this server no longer
 * serves cannot be replayed (nor forked: the fork could never run): a 409 `UnknownAgent`.
 */
import { type Agent, childAgent, type Store } from "@sema-agent/core";
import type { AgentRegistry } from "@sema-agent/worker";
import { HttpError } from "../http-error.ts";

/**
 * The agent `taskId` runs as on this server, or `undefined` when it names one not served. A chain
 * of parents that comes back to a task already seen (a log written by hand) finds none.
 */
export async function agentOfTask(
  store: Store,
  agents: AgentRegistry,
  taskId: string,
  seen: ReadonlySet<string> = new Set(),
): Promise<Agent | undefined> {
  if (seen.has(taskId)) return undefined;
  const [created] = await store.read(taskId, { limit: 1 });
  if (created?.type !== "task_created") return undefined;
  const name = created.agent;
  if (created.parentTaskId === undefined) return agents.get(name ?? agents.defaultName);
  const parent = await agentOfTask(store, agents, created.parentTaskId, new Set([...seen, taskId]));
  if (parent === undefined) return name === undefined ? undefined : agents.get(name);
  return childAgent(parent, name);
}

/** The agent a root task naming `name` (or none: the default agent) runs as, or `undefined`. */
export function rootAgent(agents: AgentRegistry, name: string | undefined): Agent | undefined {
  return agents.get(name ?? agents.defaultName);
}

/** The 409 for a task whose agent is no longer served. */
export function unknownAgent(taskId: string, agent: string | undefined, agents: AgentRegistry): HttpError {
  const named = agent ?? agents.defaultName;
  return new HttpError(
    409,
    "UnknownAgent",
    `task ${taskId} runs as the agent ${named}, which this server does not serve (any more)`,
    { details: { taskId, agent: named, agents: agents.names() } },
  );
}
