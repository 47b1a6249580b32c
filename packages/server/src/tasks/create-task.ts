/**
 * Creating a task for a caller, as every route that starts one does (`POST /v1/tasks`, the MCP
 * server's `run_<agent>`, the front-end protocols): the objective checked on the user lane, the agent looked up, the task
 * owned by the caller's principal (refused past its `concurrentTasks` quota), and this process's workers told.
 */
import { type StartTaskInput, startTask } from "@sema-agent/core";
import { refusedProviderOption } from "@sema-agent/core/protocol";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { checkTextOrParts, type TextOrParts } from "../ingress/sanitize.ts";
import type { TaskDeps } from "./task-deps.ts";

/** What a route decides of a new task; the rest comes from the caller and the server's limits. */
export type CreateTaskFields = Omit<
  StartTaskInput,
  "objective" | "principal" | "actor" | "agent" | "model" | "content"
>;

/**
 * Start a task of `agentName` (the default agent when undefined) for `caller`. `where` names the
 * objective and the agent in errors (`body.objective`, `body.agent`). Provider options are refused
 * (400, naming the key) unless the agent's `callerProviderOptions` lists each. Returns the task id.
 */
export async function createTaskFor(
  deps: TaskDeps,
  caller: Caller,
  request: {
    objective: TextOrParts;
    agent?: string | undefined;
    /** Paths for errors; `providerOptions` defaults to `settings.providerOptions`. */
    where: { objective: string; agent: string; providerOptions?: string };
  },
  fields: CreateTaskFields = {},
): Promise<string> {
  const { agents, limits } = deps;
  const objective = checkTextOrParts(request.objective, "user", limits.maxTextChars, request.where.objective);
  const name = request.agent ?? agents.defaultName;
  const agent = agents.get(name);
  if (agent === undefined)
    throw badRequest(`${request.where.agent}: no agent named ${name}`, request.where.agent, { agents: agents.names() });
  // A caller's provider options reach the provider's request body: only what the agent allows.
  if (fields.providerOptions !== undefined) {
    const refused = refusedProviderOption(fields.providerOptions, agent.callerProviderOptions);
    const where = request.where.providerOptions ?? "settings.providerOptions";
    if (refused !== undefined)
      throw badRequest(`${where}.${refused.path}: ${refused.message}`, `${where}.${refused.path}`);
  }
  // The store refuses past the caller's concurrentTasks quota (QuotaExceeded: 429), atomically.
  const maxActiveTasks = (await deps.quotasFor?.(caller.principal))?.concurrentTasks;
  const taskId = await startTask(deps.store, {
    ...fields,
    ...(maxActiveTasks === undefined ? {} : { maxActiveTasks }),
    objective,
    principal: caller.principal,
    actor: caller.actor,
    agent: name,
    model: agent.model.id,
    content: { maxPartBytes: limits.maxPartBytes, maxInputBytes: limits.maxContentBytes },
    ...(caller.traceContext === undefined ? {} : { traceContext: caller.traceContext }),
  });
  deps.workers?.notify(taskId);
  return taskId;
}
