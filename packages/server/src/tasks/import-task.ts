/**
 * Importing an export file for a caller (`POST /v1/tasks/import`): core's `importTask`, for the
 * caller's principal (never the file's), after the file is held to the rules of task creation
 * and its parent links to the shape an export gives them. An imported task runs on as the served
 * agent it names, so the provider options its log records (`task_created`, a fork's
 * `task_forked`) are refused, naming the line, unless that agent's `callerProviderOptions` lists
 * each key: a file is what a caller sends, and never overrides what the operator configured.
 * Nothing is written unless the whole file passes.
 */
import { type Agent, childAgent } from "@sema-agent/core";
import { InvalidInputError, refusedProviderOption } from "@sema-agent/core/protocol";
import { type ImportResult, importTask, parseExport } from "@sema-agent/core/time-travel";
import type { Caller } from "../ingress/caller.ts";
import { rootAgent } from "./served-agent.ts";
import type { TaskDeps } from "./task-deps.ts";

/**
 * Check a file before it is imported: core's checks of every line, then the parent links (each
 * child after its parent, as an export writes them, so no task can end up its own ancestor) and
 * the provider options against the agents the tasks would run as (see the module comment).
 */
async function checkFile(deps: TaskDeps, text: string): Promise<void> {
  // Checks the whole file first (lines, schemas, counts, digests): InvalidInput naming the line.
  const { tasks } = await parseExport(text);
  const inFile = new Set(tasks.map((task) => task.line.taskId));
  // task id in the file → the agent it runs as here (undefined: none served).
  const agentOf = new Map<string, Agent | undefined>();
  let line = 1; // the header
  for (const task of tasks) {
    line++; // the task's line
    const id = task.line.taskId;
    const first = task.events[0];
    const created = first?.type === "task_created" ? first : undefined;
    // The parent the import writes is the one its task_created names.
    const parent = created?.parentTaskId;
    if (parent !== undefined && inFile.has(parent) && !agentOf.has(parent))
      throw new InvalidInputError(
        `export file, line ${line + 1}: task ${id} names as its parent ${parent}, which does not come before it in the file`,
        { line: line + 1 },
      );
    // A child whose parent is in the file stays its child, and runs as the agent its parent's
    // delegates to by that name; any other task is imported as a root, and runs as the
    // registered agent it names (as a worker finds them).
    let agent: Agent | undefined;
    if (parent !== undefined && inFile.has(parent)) {
      const parentAgent = agentOf.get(parent);
      agent = parentAgent === undefined ? undefined : childAgent(parentAgent, created?.agent);
    } else agent = rootAgent(deps.agents, created?.agent);
    agentOf.set(id, agent);
    for (const event of task.events) {
      line++;
      const settings = event.type === "task_created" || event.type === "task_forked" ? event.settings : undefined;
      const options = settings?.providerOptions;
      const refused = options === undefined ? undefined : refusedProviderOption(options, agent?.callerProviderOptions);
      if (refused !== undefined)
        throw new InvalidInputError(
          `export file, line ${line}: settings.providerOptions.${refused.path}: ${refused.message}`,
          { line, path: `settings.providerOptions.${refused.path}` },
        );
    }
  }
}

/** Import `text` (an export file) as the caller's tasks; this process's workers are told of any with work. */
export async function importTaskFor(deps: TaskDeps, caller: Caller, text: string): Promise<ImportResult> {
  await checkFile(deps, text);
  const result = await importTask(deps.store, text, { principal: caller.principal });
  for (const { to } of result.tasks) if ((await deps.store.getTask(to)).summary.runnable) deps.workers?.notify(to);
  return result;
}
