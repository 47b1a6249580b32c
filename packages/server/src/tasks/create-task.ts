/**
 * Start a task for a caller: the objective checked at the ingress, the agent looked up by name,
 * the task recorded under the caller's principal and actor, and this process's workers told.
 */
import { startTask } from "@sema-agent/core";
import type { z } from "zod";
import { badRequest } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { checkTextOrParts } from "../ingress/sanitize.ts";
import type { CreateTaskRequest } from "../schemas/tasks.ts";
import type { TaskDeps } from "./task-deps.ts";

/** A create request as its schema gives it; `path` prefixes the error paths (`body`, `arguments`). */
export async function createTaskFor(
  deps: TaskDeps,
  caller: Caller,
  body: z.output<typeof CreateTaskRequest>,
  path = "body",
): Promise<string> {
  const { agents, limits } = deps;
  const objective = checkTextOrParts(body.objective, "user", limits.maxTextChars, `${path}.objective`);
  const name = body.agent ?? agents.defaultName;
  const agent = agents.get(name);
  if (agent === undefined)
    throw badRequest(`${path}.agent: no agent named ${name}`, `${path}.agent`, { agents: agents.names() });
  const taskId = await startTask(deps.store, {
    objective,
    principal: caller.principal,
    actor: caller.actor,
    agent: name,
    model: agent.model.id,
    content: { maxPartBytes: limits.maxPartBytes, maxInputBytes: limits.maxContentBytes },
    ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
    ...body.settings,
  });
  deps.workers?.notify(taskId);
  return taskId;
}
